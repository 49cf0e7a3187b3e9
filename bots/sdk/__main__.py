"""``python -m bots.sdk FILE[:Class]``: serve the bot protocol with that class."""

from bots.sdk.runtime import main

raise SystemExit(main())
