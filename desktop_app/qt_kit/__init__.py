"""The Qt kit both Qt packages use: the look (tokens, theme, fixed colours), icons drawn in code and
servers' own, layouts and labels (`flow_layout`, `elided_label`), links, drags and argument fields.

It may use the bridge and the core; the window (`ui`) and the resource browser (`resources_ui`) use it,
and it imports neither. Import the modules themselves: the package imports nothing, so a light module
(`tokens`, `flow_layout`) costs the window nothing before its first paint.
"""
