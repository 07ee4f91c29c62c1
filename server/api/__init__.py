"""HTTP routers, one per resource, and the pydantic models at the edge."""
