"""okeyplatform: plumbing shared by the services and the ``okey`` command."""

import os

# gRPC's fork handlers run in every child forked from a process that has loaded grpc (even
# one that execs at once, like the embedded PostgreSQL and NATS), and there they crashed the
# child now and then. Nothing here forks to keep using gRPC, so they are switched off before
# grpc is first imported.
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")
