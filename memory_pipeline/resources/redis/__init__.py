"""Redis: the connection and key scheme, the embedded redis-server and its watchdog, the staged
proposals."""
