class TritonPythonModel:
    def initialize(self, args):
        raise ValueError("initialize refused on purpose")

    def execute(self, requests):
        return []
