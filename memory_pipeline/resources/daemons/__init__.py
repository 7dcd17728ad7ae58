"""The long-lived processes a workspace runs beside its commands: the Dagster daemon (and `dagster
dev`), its records and its unit for the user's service manager, the recall service's socket, and
the list of them all, to show or stop."""
