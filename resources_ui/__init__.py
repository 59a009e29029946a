"""The user's half of MCP resources: browse every server's offer, view content natively, attach it.

All Qt; data comes from the Qt-free core through `desktop_app.bridge.CoreBridge`, the look and the
small widgets it shares with the window from `desktop_app.qt_kit`. Import the modules themselves: the
package imports nothing, so the window pays only for what it uses.
"""
