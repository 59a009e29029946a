"""Running the chat in the window: the controller of its turns, the model's warm-up and the context's
cost, what a chat keeps besides its turns, History, the command palette and the prompt form.

It may use the rooms below it (app views among them), the conversation's widgets, the asks and `widgets`.
"""
