"""okeyplatform: the runtime the services share (event store, bus, gRPC host, auth, logs, proto
conversion). It imports no service and no tool (okeytools); tests/test_import_graph.py checks it."""

import os

# gRPC's fork handlers run in every child forked from a process that has loaded grpc (even
# one that execs at once, like the embedded PostgreSQL and NATS), and there they crashed the
# child now and then. Nothing here forks to keep using gRPC, so they are switched off before
# grpc is first imported.
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")
