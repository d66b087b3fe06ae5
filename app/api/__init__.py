"""HTTP only: routes, their dependencies, middleware, problem+json errors, the viewer page."""
