"""okeyplatform: plumbing shared by the services and the ``okey`` command."""
