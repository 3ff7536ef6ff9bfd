"""`python -m lessonkit check|grade|new`: the authoring tools' command line (authorkit.cli). The
one module of this package that is not the runtime: lessonkit.zip leaves it out."""
import sys

from authorkit.cli import main

sys.exit(main())
