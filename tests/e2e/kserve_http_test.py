"""KServe's Open Inference Protocol v2 over HTTP/JSON, as users reach it:
curl and Python's urllib against the real daemon's HTTP listener, with
tokens; models named by job id, prefix, run name; class names beside the
probabilities (and Triton's classification extension) over HTTP and gRPC.

Usage: kserve_http_test.py WEBNNMD WEBNNMCTL SOURCE_DIR [unittest args]
"""
import json
import os
import subprocess
import sys
import unittest
import urllib.error
import urllib.request

import daemon_harness as h
from daemon_harness import Temp, iris_flags

ROWS = [[5.1, 3.5, 1.4, 0.2], [6.7, 3.0, 5.2, 2.3]]


class KServeHttp(Temp):
    def setUp(self):
        super().setUp()
        tokens = os.path.join(self.dir, "tokens")
        with open(tokens, "w") as f:
            f.write("ann-secret ann\nbob-secret bob\n")
        self.d = self.daemon("db", "--http-listen", "127.0.0.1:0",
                             tokens=tokens)
        self.http = "http://" + self.d.ready_line.split("http=")[1].split()[0]
        self.job = self.submit(self.d, *iris_flags(60), "--name", "flowers",
                               token="ann-secret")
        code, _, err = self.d.ctl("watch", self.job, token="ann-secret")
        self.assertEqual(code, 0, err)

    def call(self, path, body=None, token="ann-secret", method=None):
        """(status, JSON answer) of a request with urllib."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.http + path, data=data,
                                         method=method)
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    def infer(self, name, inputs, outputs=None, token="ann-secret"):
        body = {"id": "q1", "inputs": inputs}
        if outputs is not None:
            body["outputs"] = outputs
        return self.call(f"/v2/models/{name}/infer", body, token=token)

    def test_curl_infers_by_run_name_with_class_names(self):
        body = json.dumps({"inputs": [{"name": "model", "shape": [2, 4],
                                       "datatype": "FP32", "data": ROWS}]})
        out = subprocess.run(
            ["curl", "-s", "-H", "Authorization: Bearer ann-secret",
             f"{self.http}/v2/models/flowers/infer", "-d", body],
            capture_output=True, text=True, timeout=60, check=True).stdout
        answer = json.loads(out)
        self.assertEqual(answer["model_name"], "flowers")
        self.assertEqual(answer["model_version"], "1")
        probs, names = answer["outputs"]
        self.assertEqual((probs["name"], probs["datatype"], probs["shape"]),
                         ("model", "FP32", [2, 3]))
        self.assertAlmostEqual(sum(probs["data"][:3]), 1, places=5)
        self.assertEqual((names["name"], names["datatype"], names["shape"]),
                         ("model_class", "BYTES", [2]))
        self.assertEqual(names["data"], ["setosa", "virginica"])
        # The same numbers as webnnm.v1's Infer.
        code, text, err = self.d.ctl(
            "infer", self.job, "--values", "5.1,3.5,1.4,0.2", "--values",
            "6.7,3.0,5.2,2.3", "-o", "json", token="ann-secret")
        self.assertEqual(code, 0, err)
        for a, b in zip(json.loads(text)["outputs"]["model"]["values"],
                        probs["data"]):
            self.assertAlmostEqual(a, b, places=6)

    def test_health_metadata_and_readiness(self):
        self.assertEqual(self.call("/v2/health/live"), (200, {"live": True}))
        self.assertEqual(self.call("/v2/health/ready"),
                         (200, {"ready": True}))
        status, meta = self.call("/v2")
        self.assertEqual((status, meta["name"]), (200, "webnnmd"))
        self.assertIn("classification", meta["extensions"])
        # By id, by a unique prefix, by name, with the version or without.
        for name in (self.job, self.job[:8], "flowers"):
            status, m = self.call(f"/v2/models/{name}")
            self.assertEqual(status, 200, m)
            self.assertEqual(m["name"], name)
            self.assertEqual(m["versions"], ["1"])
            self.assertEqual(m["inputs"], [{"name": "model",
                                            "datatype": "FP32",
                                            "shape": [-1, 4]}])
            self.assertEqual([o["name"] for o in m["outputs"]],
                             ["model", "model_class"])
            self.assertEqual(self.call(f"/v2/models/{name}/versions/1/ready"),
                             (200, {"name": name, "ready": True}))
        status, m = self.call("/v2/models/flowers/versions/2")
        self.assertEqual(status, 404)
        self.assertIn("no version '2'", m["error"])

    def test_datatypes_and_nested_or_flat_data(self):
        flat = [v for row in ROWS for v in row]
        want = self.infer("flowers", [{"name": "model", "shape": [2, 4],
                                       "datatype": "FP32",
                                       "data": flat}])[1]["outputs"][0]["data"]
        for datatype, data, places in [("FP32", ROWS, 6), ("FP64", flat, 6),
                                       ("FP16", ROWS, 2)]:
            status, a = self.infer("flowers", [{
                "name": "model", "shape": [2, 4], "datatype": datatype,
                "data": data}])
            self.assertEqual(status, 200, a)
            for x, y in zip(a["outputs"][0]["data"], want):
                self.assertAlmostEqual(x, y, places=places)
        whole = [[5, 3, 1, 0]]
        floats = self.infer("flowers", [{"name": "model", "shape": [1, 4],
                                         "datatype": "FP32", "data": whole}])
        for datatype in ("INT8", "INT32", "INT64", "UINT8"):
            status, a = self.infer("flowers", [{
                "name": "model", "shape": [1, 4], "datatype": datatype,
                "data": whole}])
            self.assertEqual(status, 200, a)
            self.assertEqual(a["outputs"], floats[1]["outputs"])

    def test_triton_classification_extension(self):
        status, a = self.infer(
            "flowers", [{"name": "model", "shape": [2, 4], "datatype": "FP32",
                         "data": ROWS}],
            outputs=[{"name": "model", "parameters": {"classification": 2}}])
        self.assertEqual(status, 200, a)
        [out] = a["outputs"]
        self.assertEqual((out["datatype"], out["shape"]), ("BYTES", [2, 2]))
        score, index, name = out["data"][0].split(":")
        self.assertEqual((index, name), ("0", "setosa"))
        self.assertGreater(float(score), 0.5)
        self.assertEqual(out["data"][2].split(":")[2], "virginica")
        # Only the class names.
        status, a = self.infer(
            "flowers", [{"name": "model", "shape": [2, 4], "datatype": "FP32",
                         "data": ROWS}], outputs=[{"name": "model_class"}])
        self.assertEqual([o["name"] for o in a["outputs"]], ["model_class"])

    def test_tokens_and_errors(self):
        inputs = [{"name": "model", "shape": [1, 4], "datatype": "FP32",
                   "data": ROWS[:1]}]
        status, a = self.infer("flowers", inputs, token=None)
        self.assertEqual(status, 401)
        self.assertIn("token", a["error"])
        self.assertEqual(self.infer("flowers", inputs, token="wrong")[0], 401)
        self.assertEqual(self.call("/v2/health/live", token=None)[0], 401)
        # Another principal's model is no model at all.
        for name in ("flowers", self.job):
            status, a = self.infer(name, inputs, token="bob-secret")
            self.assertEqual(status, 404)
            self.assertIn("no model", a["error"])
        for body, status, words in [
                ({"inputs": [{"name": "model", "shape": [1, 3],
                              "datatype": "FP32", "data": [1, 2, 3]}]},
                 400, "needs shape"),
                ({"inputs": [{"name": "model", "shape": [1, 4],
                              "datatype": "FP32", "data": [1, 2, 3]}]},
                 400, "3 values in 'data' for shape [1,4]"),
                ({"inputs": [{"name": "model", "shape": [1, 4],
                              "datatype": "INT8", "data": [1, 2, 3, 300]}]},
                 400, "outside INT8"),
                ({"inputs": [{"name": "model", "shape": [1, 4],
                              "datatype": "STRING", "data": [1, 2, 3, 4]}]},
                 400, "not one of BOOL"),
                ({"inputs": []}, 400, "input"),
                ({}, 400, "no 'inputs' array")]:
            got, a = self.call("/v2/models/flowers/infer", body)
            self.assertEqual(got, status, a)
            self.assertIn(words, a["error"])
        got, a = self.call("/v2/models/flowers/infer", inputs, method="PUT")
        self.assertEqual(got, 405)
        got, a = self.call("/v2/models/no-such-model/infer",
                           {"inputs": inputs})
        self.assertEqual((got, a["error"]), (404, "no model no-such-model"))
        got, a = self.call("/v2/nothing/here")
        self.assertEqual(got, 404)
        request = urllib.request.Request(
            self.http + "/v2/models/flowers/infer", data=b"{not json",
            headers={"Authorization": "Bearer ann-secret"})
        with self.assertRaises(urllib.error.HTTPError) as caught:
            urllib.request.urlopen(request, timeout=30)
        self.assertEqual(caught.exception.code, 400)

    def test_a_name_two_jobs_share_is_refused_listing_them(self):
        other = self.submit(self.d, *iris_flags(2), "--name", "flowers",
                            token="ann-secret")
        self.d.ctl("watch", other, token="ann-secret")
        status, a = self.call("/v2/models/flowers")
        self.assertEqual(status, 400)
        self.assertIn("'flowers' is the name of 2 jobs", a["error"])
        self.assertIn(self.job, a["error"])
        self.assertIn(other, a["error"])
        # Their ids still name each one.
        self.assertEqual(self.call(f"/v2/models/{other}")[0], 200)

    def test_grpc_kserve_by_name_with_class_names(self):
        import grpc_predict_v2_pb2 as pb
        import grpc_predict_v2_pb2_grpc as pbg
        stub = pbg.GRPCInferenceServiceStub(self.d.channel())
        auth = [("authorization", "Bearer ann-secret")]
        answer = stub.ModelInfer(pb.ModelInferRequest(
            model_name="flowers", inputs=[
                pb.ModelInferRequest.InferInputTensor(
                    name="model", datatype="FP32", shape=[2, 4],
                    contents=pb.InferTensorContents(
                        fp32_contents=[v for r in ROWS for v in r]))]),
            metadata=auth, timeout=30)
        self.assertEqual([o.name for o in answer.outputs],
                         ["model", "model_class"])
        self.assertEqual(list(answer.outputs[1].contents.bytes_contents),
                         [b"setosa", b"virginica"])


if __name__ == "__main__":
    rest = h.setup(sys.argv)
    unittest.main(argv=rest, verbosity=2)
