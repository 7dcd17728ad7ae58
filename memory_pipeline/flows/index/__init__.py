"""Index: a day's observations and messages in the vector store."""
