"""okeytools: the ``okey`` command and the tools around the runtime (the stack as processes,
``okey up``, ``demo``, ``export``, ``verify-deal``, ``replay``, ``review``, the embedded servers).

Tools build on okeyplatform and the services; neither of them imports tools
(tests/test_import_graph.py checks it).
"""

# okeyplatform switches gRPC's fork handlers off before grpc is first imported; a tool may be
# the first thing a process imports (the embedded servers fork), so it goes first here too.
import okeyplatform  # noqa: F401
