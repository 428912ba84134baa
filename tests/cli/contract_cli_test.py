#!/usr/bin/env python3
"""Contract tests of webnnmctl's commands about itself (issue: runs a user
can find; docs/cli.md): `--version`, `help [COMMAND]`, an unknown command
named with exit 2, and `completion bash|zsh` scripts that parse.

usage: contract_cli_test.py WEBNNMCTL VERSION
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

WEBNNMCTL = None
VERSION = None


def run(*args):
    proc = subprocess.run([WEBNNMCTL, *args], capture_output=True, text=True,
                          timeout=60)
    return proc.returncode, proc.stdout, proc.stderr


class Version(unittest.TestCase):
    def test_version_prints_the_projects_version(self):
        code, out, err = run("--version")
        self.assertEqual(code, 0, err)
        self.assertEqual(out, f"webnnmctl {VERSION}\n")
        self.assertRegex(VERSION, r"^\d+\.\d+\.\d+$")


class Help(unittest.TestCase):
    def test_help_lists_the_commands(self):
        code, out, err = run("help")
        self.assertEqual(code, 0, err)
        for command in ("check", "train", "submit", "predict", "dataset",
                        "help", "completion"):
            self.assertIn(command, out)

    def test_help_of_a_command_shows_its_options_and_the_global_ones(self):
        code, out, err = run("help", "train")
        self.assertEqual(code, 0, err)
        self.assertIn("--dataset", out)
        self.assertIn("Global options", out)
        self.assertIn("--server", out)
        self.assertIn("--output", out)
        code, out, err = run("help", "dataset", "list")
        self.assertEqual(code, 0, err)
        self.assertIn("List your datasets", out)

    def test_command_help_is_help_command_with_every_default(self):
        for args in (["list", "--help"], ["dataset", "list", "-h"],
                     ["-o", "json", "submit", "--help"]):
            code, out, err = run(*args)
            self.assertEqual(code, 0, (args, err))
            self.assertEqual(out, run("help", *[a for a in args if a not in (
                "--help", "-h", "-o", "json")])[1], args)
            self.assertIn("Global options", out)
            self.assertIn("(default: table)", out)
        code, out, _ = run("list", "--help")
        self.assertIn("=50", out)  # --limit's default
        code, out, _ = run("--help")
        self.assertIn("=table", out)

    def test_help_of_an_unknown_command_exits_2_naming_it(self):
        code, out, err = run("help", "frobnicate")
        self.assertEqual(code, 2)
        self.assertEqual(out, "")
        self.assertIn("unknown command 'frobnicate'", err)
        code, _, err = run("help", "dataset", "shred")
        self.assertEqual(code, 2)
        self.assertIn("unknown command 'dataset shred'", err)


class Yaml(unittest.TestCase):
    def test_yaml_is_the_json_for_every_golden_model(self):
        # Diagnostics hold quotes, colons, hashes, brackets and unicode:
        # each document read back by PyYAML equals the JSON one.
        import glob
        import yaml
        here = os.path.dirname(os.path.abspath(__file__))
        models = sorted(glob.glob(os.path.join(here, "..", "golden",
                                               "language", "*.wnm")))
        self.assertGreater(len(models), 20)
        for model in models:
            _, as_json, _ = run("-o", "json", "check", model)
            _, as_yaml, _ = run("-o", "yaml", "check", model)
            self.assertEqual(yaml.safe_load(as_yaml), json.loads(as_json),
                             model)


class UnknownCommand(unittest.TestCase):
    def test_an_unknown_command_exits_2_naming_it(self):
        for args in (["foo"], ["-o", "json", "foo"], ["--server", "x:1",
                                                      "foo", "bar"]):
            code, out, err = run(*args)
            self.assertEqual(code, 2, args)
            self.assertIn("unknown command 'foo'", err, args)
            self.assertEqual(out, "")

    def test_a_known_command_with_bad_flags_is_not_called_unknown(self):
        code, _, err = run("check", "--frobnicate")
        self.assertEqual(code, 2)
        self.assertNotIn("unknown command", err)
        self.assertIn("webnnmctl: check: unknown option --frobnicate", err)

    def test_slips_get_the_nearest_command_or_option(self):
        for args, words in [
                (["sumbit", "x.wnm"],
                 "webnnmctl: unknown command 'sumbit' (did you mean "
                 "submit?; webnnmctl help lists the commands)"),
                (["lsit"], "(did you mean list?"),
                (["dataset", "uplaod", "x.csv"],
                 "unknown command 'dataset uplaod' (did you mean upload?; "
                 "webnnmctl help dataset lists the commands)"),
                (["submit", "m.wnm", "--dataset", "d.csv", "--lable", "y"],
                 "webnnmctl: submit: unknown option --lable (did you mean "
                 "--label?; webnnmctl help submit lists its options)"),
                (["train", "--local", "m.wnm", "--epohcs", "3"],
                 "unknown option --epohcs (did you mean --epochs?"),
                (["--sever", "x:1", "list"],
                 "unknown option --sever (did you mean --server?"),
                (["list", "--limt", "3"], "(did you mean --limit?"),
                (["get"], "webnnmctl: get: JOB is required")]:
            code, out, err = run(*args)
            self.assertEqual(code, 2, args)
            self.assertIn(words, err, args)
            self.assertEqual(out, "", args)
            self.assertEqual(err.count("\n"), 1, err)
        # Nothing near enough: no guess.
        code, _, err = run("xyzzy")
        self.assertEqual(code, 2)
        self.assertNotIn("did you mean", err)


class Completion(unittest.TestCase):
    def test_bash_completion_parses_and_completes(self):
        code, script, err = run("completion", "bash")
        self.assertEqual(code, 0, err)
        self.assertIn("complete -o filenames -F _webnnmctl webnnmctl", script)
        bash = shutil.which("bash")
        with tempfile.NamedTemporaryFile("w", suffix=".bash",
                                         delete=False) as f:
            f.write(script)
            path = f.name
        check = subprocess.run([bash, "-n", path], capture_output=True,
                               text=True)
        self.assertEqual(check.returncode, 0, check.stderr)

        # Run the completion function as bash would for a few lines.
        def complete(*words):
            line = " ".join(["webnnmctl", *words])
            cword = len(words)
            probe = (f"source {path}\n"
                     f"COMP_WORDS=(webnnmctl {' '.join(repr(w) for w in words)})\n"
                     f"COMP_CWORD={cword}\n"
                     "_webnnmctl\n"
                     "printf '%s\\n' \"${COMPREPLY[@]}\"\n")
            out = subprocess.run([bash, "-c", probe], capture_output=True,
                                 text=True, cwd=tempfile.gettempdir())
            self.assertEqual(out.returncode, 0, (line, out.stderr))
            return out.stdout.split()

        self.assertIn("submit", complete("su"))
        self.assertIn("list", complete("dataset", "l"))
        self.assertIn("--dataset", complete("train", "--da"))
        self.assertIn("--epochs", complete("submit", "model.wnm", "--ep"))
        self.assertIn("export", complete("snapshot", ""))

    def test_zsh_completion_is_a_compdef(self):
        code, script, err = run("completion", "zsh")
        self.assertEqual(code, 0, err)
        self.assertTrue(script.startswith("#compdef webnnmctl\n"))
        self.assertIn("compdef _webnnmctl webnnmctl", script)
        zsh = shutil.which("zsh")
        if zsh:
            with tempfile.NamedTemporaryFile("w", suffix=".zsh",
                                             delete=False) as f:
                f.write(script)
            check = subprocess.run([zsh, "-n", f.name], capture_output=True,
                                   text=True)
            self.assertEqual(check.returncode, 0, check.stderr)

    def test_an_unknown_shell_is_a_usage_error(self):
        code, _, err = run("completion", "fish")
        self.assertEqual(code, 2)
        self.assertIn("fish", err)


if __name__ == "__main__":
    WEBNNMCTL, VERSION = sys.argv[1], sys.argv[2]
    unittest.main(argv=[sys.argv[0]], verbosity=2)
