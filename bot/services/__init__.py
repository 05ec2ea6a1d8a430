"""Services apply rules to stored state: each public call is one transaction."""
