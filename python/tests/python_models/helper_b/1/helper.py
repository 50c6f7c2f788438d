VALUE = "b"
