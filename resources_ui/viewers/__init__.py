"""Native viewers for resource content, and the pane that picks one by content."""
