"""The conversation pane: messages, tool cards, approval cards and the composer."""
