"""The attack suite of the web service (issue 14): each module attacks one hole the way
a hostile web user would, through HTTP or a real worker, and checks that it is closed."""
