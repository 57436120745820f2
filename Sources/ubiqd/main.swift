print("ubiqd")
