"""The bundled local models, run with onnxruntime: sentence embeddings and the entailment cross-encoder."""
