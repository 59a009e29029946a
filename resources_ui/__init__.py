"""The user's half of MCP resources: browse every server's offer, view content natively, attach it.

All Qt; data comes from the Qt-free core through `desktop_app.bridge.CoreBridge`. Import the modules
themselves: the package imports nothing, so a light module here (`colours`, `flow_layout`) costs the
window nothing before its first paint.
"""
