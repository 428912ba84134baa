"""Errors as Python exceptions carrying the daemon's message."""
import os

import pytest

import webnnm
from conftest import Daemon, config


def test_a_model_that_does_not_check_is_refused_with_its_line(client):
    with pytest.raises(webnnm.InvalidArgument) as e:
        client.submit("model:input shape=[4];\nlayer x = dense(nope);\n",
                      config("datasets", "iris.csv"))
    assert e.value.code == "INVALID_ARGUMENT"
    assert "model.wnm:2:7" in e.value.message


def test_a_misspelt_hyperparameter_is_refused_before_any_upload(client):
    with pytest.raises(TypeError, match="did you mean batch_size"):
        client.submit(config("models", "iris.wnm"), "/no/such/file.csv",
                      batchsize=16)
    with pytest.raises(TypeError, match="hyperparameter 'epochs'"):
        client.submit(config("models", "iris.wnm"), "/no/such/file.csv",
                      epochs="many")


def test_a_bad_value_is_the_daemons_refusal(client):
    with pytest.raises(webnnm.InvalidArgument, match="optimizer"):
        client.submit(config("models", "iris.wnm"),
                      config("datasets", "iris.csv"), optimizer="adagrad")


def test_no_such_job_or_dataset(client):
    with pytest.raises(webnnm.NotFound):
        client.run("j0000000000000000")
    with pytest.raises(webnnm.NotFound, match="no file and no dataset"):
        client.submit(config("models", "iris.wnm"), "dnot-a-dataset")
    with pytest.raises(FileNotFoundError):
        client.upload("/no/such/file.csv")


def test_a_failed_job_raises_on_wait(client):
    # A rate far too high: the run diverges, restarts twice and fails.
    run = client.submit(config("models", "iris.wnm"),
                        config("datasets", "iris.csv"), epochs=20, lr=1e6,
                        optimizer="sgdm")
    with pytest.raises(webnnm.JobFailed, match="training diverged") as e:
        run.wait(timeout=60)
    assert e.value.run.state == "failed"
    assert run.wait(raise_on_failure=False).state == "failed"


def test_tokens_are_sent_and_enforced(folder):
    tokens = os.path.join(folder, "tokens")
    with open(tokens, "w") as f:
        f.write("ann-secret ann\nbob-secret bob\n")
    d = Daemon(folder, tokens=tokens)
    try:
        with pytest.raises(webnnm.Unauthenticated):
            webnnm.Client(d.address).datasets()
        with pytest.raises(webnnm.Unauthenticated, match="unknown token"):
            webnnm.Client(d.address, token="wrong").datasets()
        ann = webnnm.Client(d.address, token="ann-secret")
        run = ann.submit(config("models", "iris.wnm"),
                         config("datasets", "iris.csv"), epochs=2)
        with pytest.raises(webnnm.NotFound):
            webnnm.Client(d.address, token="bob-secret").run(run.id)
        assert run.wait(timeout=60).state == "succeeded"
    finally:
        assert d.stop() == 0


def test_an_unreachable_daemon(folder):
    from conftest import free_port
    c = webnnm.Client(f"127.0.0.1:{free_port()}", timeout=2)
    with pytest.raises(webnnm.Unavailable, match="cannot reach webnnmd"):
        c.datasets()
