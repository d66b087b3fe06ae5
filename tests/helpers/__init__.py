"""What several test modules share: sample PDFs, the shared corpus, clients, databases and
checks. Test modules and conftests import these from here, never from one another; conftests
hold only fixtures (tests/unit/test_test_layout.py keeps it so)."""
