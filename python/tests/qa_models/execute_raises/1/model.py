# IN[0] chooses: 0 raises, 1 returns no list, 2 returns too few responses,
# 3 returns a str in the list.
class TritonPythonModel:
    def execute(self, requests):
        import triton_python_backend_utils as pb_utils

        how = int(pb_utils.get_input_tensor_by_name(requests[0], "IN").as_numpy()[0])
        if how == 0:
            raise Exception("Intentional Error")
        if how == 1:
            return "no list"
        if how == 2:
            return []
        return ["not a response"] * len(requests)
