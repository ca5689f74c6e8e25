print("repo-scroll: not yet implemented")
