#!/usr/bin/env python3
"""Contract tests of `webnnmctl check` (issue: the foundation).

Runs the real binary and checks exit codes, the JSON object's keys, values
and order, -o before and after the subcommand, located diagnostics with
1-based lines and columns counted in characters, and usage errors.

usage: check_cli_test.py WEBNNMCTL MODELS_DIR
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

WEBNNMCTL = None
MODELS = None
KEYS = ["ok", "name", "inputs", "outputs", "parameters", "parameterCount",
        "nodeCount", "diagnostics", "warnings"]


def run(*args):
    proc = subprocess.run([WEBNNMCTL, *args], capture_output=True, text=True,
                          timeout=60)
    return proc.returncode, proc.stdout, proc.stderr


def write_model(text):
    handle = tempfile.NamedTemporaryFile("w", suffix=".wnm", delete=False,
                                         encoding="utf-8")
    handle.write(text)
    handle.close()
    return handle.name


class CheckJson(unittest.TestCase):
    def check_json(self, *args):
        code, out, err = run(*args)
        lines = [line for line in out.splitlines() if line.strip()]
        self.assertEqual(len(lines), 1, f"one JSON object expected: {out!r}")
        return code, json.loads(lines[0]), err

    def test_basic_model_contract(self):
        code, data, _ = self.check_json(
            "check", os.path.join(MODELS, "fashion-mlp.wnm"), "-o", "json")
        self.assertEqual(code, 0)
        self.assertEqual(list(data.keys()), KEYS)
        self.assertTrue(data["ok"])
        self.assertEqual(data["name"], "basic-model")
        self.assertEqual(data["inputs"], [{"name": "model",
                                           "dataType": "float32",
                                           "shape": [784],
                                           "dims": ["features"],
                                           "sequenced": False}])
        self.assertEqual(data["outputs"], [{"name": "model",
                                            "dataType": "float32",
                                            "shape": [10],
                                            "dims": ["labels"],
                                            "sequenced": False}])
        self.assertEqual(data["parameters"][0],
                         {"name": "w1", "dataType": "float32",
                          "shape": [784, 128], "init": "he"})
        self.assertEqual([p["name"] for p in data["parameters"]],
                         ["w1", "b1", "w2", "b2", "w3", "b3", "w4", "b4"])
        self.assertEqual([p["init"] for p in data["parameters"]],
                         ["he", "zeros", "he", "zeros", "he", "zeros",
                          "glorot", "zeros"])
        self.assertEqual(data["parameterCount"], 114450)
        self.assertEqual(data["nodeCount"], 22)
        self.assertEqual(data["diagnostics"], [])
        self.assertEqual(data["warnings"], [])

    def test_sequenced_tensors_say_so(self):
        # tagger.wnm: a sequence of token ids in, a tag a step out.
        code, data, _ = self.check_json(
            "check", os.path.join(MODELS, "tagger.wnm"), "-o", "json")
        self.assertEqual(code, 0)
        self.assertEqual(data["inputs"][0]["sequenced"], True)
        self.assertEqual(data["outputs"][0]["sequenced"], True)
        self.assertEqual(data["outputs"][0]["dims"], ["tags"])

    def test_output_flag_before_the_subcommand(self):
        code, data, _ = self.check_json(
            "-o", "json", "check", os.path.join(MODELS, "iris.wnm"))
        self.assertEqual(code, 0)
        self.assertEqual(data["parameterCount"], 27)
        self.assertEqual(data["name"], "test-model")

    def test_invalid_model(self):
        path = write_model("model:input shape=[4];\n"
                           "model:output shape=[3];\n"
                           "model:layers relu(), softmaxx();\n")
        code, data, _ = self.check_json("check", path, "-o", "json")
        self.assertEqual(code, 1)
        self.assertEqual(list(data.keys()), KEYS)
        self.assertFalse(data["ok"])
        for key in ["inputs", "outputs", "parameters"]:
            self.assertEqual(data[key], [])
        self.assertEqual(data["parameterCount"], 0)
        self.assertEqual(len(data["diagnostics"]), 1)
        d = data["diagnostics"][0]
        self.assertEqual(d["file"], path)
        self.assertEqual((d["line"], d["column"]), (3, 22))
        self.assertEqual(d["severity"], "error")
        self.assertIn("softmaxx", d["message"])
        self.assertIn("softmax", d["message"])

    def test_columns_count_characters(self):
        # 'é' is two bytes but one column; the error after it is at 24.
        path = write_model("model:input shape=[4];\n"
                           "model:output shape=[4];\n"
                           "model:layers relu(), é relu(;\n")
        code, data, _ = self.check_json("check", path, "-o", "json")
        self.assertEqual(code, 1)
        columns = [(d["line"], d["column"]) for d in data["diagnostics"]]
        self.assertIn((3, 22), columns)  # the unexpected character itself

    def test_warnings_are_strings(self):
        path = write_model("mode:name spec-slip;\n"
                           "model:input shape=[4];\n"
                           "model:output shape=[4];\n"
                           "model:layers relu();\n")
        code, data, _ = self.check_json("check", path, "-o", "json")
        self.assertEqual(code, 0)
        self.assertEqual(data["name"], "spec-slip")
        self.assertEqual(len(data["warnings"]), 1)
        self.assertIsInstance(data["warnings"][0], str)
        self.assertEqual(data["diagnostics"][0]["severity"], "warning")


class CheckText(unittest.TestCase):
    def test_summary_and_caret(self):
        code, out, err = run("check", os.path.join(MODELS, "fashion-cnn.wnm"))
        self.assertEqual(code, 0)
        self.assertIn("model fashion-cnn", out)
        self.assertIn("filter1", out)
        self.assertIn("[8, 1, 3, 3]", out)
        path = write_model("model:input shape=[4];\n"
                           "model:output shape=[3];\n"
                           "model:layers relu(), softmaxx();\n")
        code, out, err = run("check", path)
        self.assertEqual(code, 1)
        lines = err.splitlines()
        self.assertTrue(lines[0].startswith(f"{path}:3:22: error: "), err)
        self.assertEqual(lines[1], "model:layers relu(), softmaxx();")
        self.assertEqual(lines[2], " " * 21 + "^~~~~~~~")


class Usage(unittest.TestCase):
    def test_unreadable_file(self):
        code, out, err = run("check", "/nonexistent/model.wnm")
        self.assertEqual(code, 2)
        self.assertEqual(out, "")
        self.assertIn("/nonexistent/model.wnm", err)

    def test_bad_flags(self):
        self.assertEqual(run("check")[0], 2)
        self.assertEqual(run("check", "a.wnm", "--bogus")[0], 2)
        self.assertEqual(run("-o", "yaml", "check", "a.wnm")[0], 2)
        self.assertEqual(run()[0], 2)
        self.assertEqual(run("frobnicate")[0], 2)


if __name__ == "__main__":
    WEBNNMCTL, MODELS = sys.argv[1], sys.argv[2]
    unittest.main(argv=sys.argv[:1], verbosity=2)
