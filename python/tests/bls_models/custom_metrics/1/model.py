import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    """add_sub that counts its requests in a counter family its three
    instances share, and observes INPUT0's first value in a histogram."""

    def initialize(self, args):
        labels = {"model": args["model_name"], "version": args["model_version"]}
        self.requests_family = pb_utils.MetricFamily(
            name="bls_test_requests", description="Requests executed",
            kind=pb_utils.MetricFamily.COUNTER)
        self.requests = self.requests_family.Metric(labels=labels)
        self.sizes_family = pb_utils.MetricFamily(
            name="bls_test_first_value", description="First value of INPUT0",
            kind=pb_utils.MetricFamily.HISTOGRAM)
        self.sizes = self.sizes_family.Metric(labels=labels, buckets=[1.0, 10.0, 100.0])

    def execute(self, requests):
        responses = []
        for request in requests:
            a = pb_utils.get_input_tensor_by_name(request, "INPUT0").as_numpy()
            b = pb_utils.get_input_tensor_by_name(request, "INPUT1").as_numpy()
            self.requests.increment(1)
            self.sizes.observe(float(a[0]))
            pb_utils.Logger.log_info(f"requests so far: {self.requests.value()}")
            responses.append(pb_utils.InferenceResponse([
                pb_utils.Tensor("OUTPUT0", a + b), pb_utils.Tensor("OUTPUT1", a - b)]))
        return responses
