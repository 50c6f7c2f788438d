"""``python -m conch``: the ``conch`` command (see conch._serve)."""

import sys

from ._serve import main

sys.exit(main())
