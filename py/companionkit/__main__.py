"""Any lesson's checks under torchrun, from its library file (no per-lesson script needed):

    torchrun --standalone --nproc_per_node=2 -m companionkit lessons/tp-mlp/companion/tp_mlp_lib.py [--cpu] ...

The options after the library are the torchrun script's (see launch.torchrun_main)."""

import importlib
import sys
from pathlib import Path

from .launch import torchrun_main


def main(argv):
    if not argv or not argv[0].endswith(".py"):
        sys.exit("usage: torchrun --standalone --nproc_per_node=2 -m companionkit PATH/TO/<lesson>_lib.py [options]")
    library = Path(argv[0]).resolve()
    sys.path.insert(0, str(library.parent))  # spawned ranks are started by torchrun, each running this
    torchrun_main(importlib.import_module(library.stem).companion, argv[1:])


if __name__ == "__main__":
    main(sys.argv[1:])
