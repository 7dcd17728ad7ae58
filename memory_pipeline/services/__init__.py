"""The services: long-lived processes of their own (the recall service, the hook service, the MCP
door's tool calls, the Dagster UI's guarded webserver), each a door that builds its settings and
calls the flows."""
