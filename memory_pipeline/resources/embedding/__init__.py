"""The embedding model: sentence-transformers, its ONNX export and the ONNX Runtime embedder."""
