"""Schemathesis hooks for scripts/schemathesis.sh.

`POST /sparql` takes the query itself as the body under
`application/sparql-query` (SPARQL 1.1 Protocol), a media type schemathesis
has no serializer for: it goes on the wire as UTF-8 text, as text/plain
does.
"""

import schemathesis


@schemathesis.serializer("application/sparql-query")
def sparql_query(_ctx, value):
    if isinstance(value, bytes):
        return {"data": value}
    return {"data": str(value).encode("utf-8")}
