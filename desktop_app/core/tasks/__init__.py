"""Long-running tool calls as tasks (2025-11-25 `tasks/*` and the 2026 `io.modelcontextprotocol/tasks`
extension): polled without a client timeout, answered when they ask for input, cancelled, resumed.

Qt-free. Sits beside apps/ and auth/: may import asks/, model/, the modules directly in core/ and
extensions/ (where each form's wire format lives), never the host, a connection or the chat.
"""
