VALUE = "a"
