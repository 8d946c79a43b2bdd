"""Evidence from the spec: Z3 queries, proof artifacts and diagrams."""
