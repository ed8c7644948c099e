"""The web app's routers: the pages a browser opens (``pages``), the JSON API
(``api``), and the live connection of a game page (``live``)."""
