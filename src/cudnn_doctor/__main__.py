"""`python -m cudnn_doctor` runs the command-line interface."""

from cudnn_doctor.cli.entry import main

raise SystemExit(main())
