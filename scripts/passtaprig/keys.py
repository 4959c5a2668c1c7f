"""The key files the rig makes for passtapd. Python's `cryptography` is imported only when a key
is made, so the package itself stays standard library only."""

import os


def write_private_file(path, data):
    """Writes `data` (bytes or text) to `path` with mode 0600, as passtapd demands of its key and
    secret files."""
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), mode) as f:
        f.write(data)
    return path


def write_p256_key(path):
    """A fresh P-256 private key in PEM (SEC 1) at `path`, mode 0600: a merchant key, or a Smart
    Tap collector's."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    pem = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL, serialization.NoEncryption())
    return write_private_file(path, pem)
