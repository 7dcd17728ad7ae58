"""The vector store: the embedded Qdrant Edge shard, a Qdrant server by URL, recall's candidates."""
