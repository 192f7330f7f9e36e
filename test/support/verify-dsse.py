#!/usr/bin/env python3
"""Verifies a Citadel .intoto.jsonl bundle with implementations that are not Citadel's.

Usage: verify-dsse.py BUNDLE PUBLIC_KEY_PEM

Debian's python3-securesystemslib (0.26) checks each ed25519 signature; its DSSE module came later
(0.27), so the pre-authentication encoding is written here from the DSSE v1 spec, and the PEM is
read by python3-cryptography. Prints one line per envelope; exits 1 at the first that fails.
"""
import base64
import hashlib
import json
import sys

from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat, load_pem_public_key
from securesystemslib.signer import Signature, SSlibKey

PAYLOAD_TYPE = "application/vnd.in-toto+json"
STATEMENT_TYPE = "https://in-toto.io/Statement/v1"


def pae(payload_type: bytes, payload: bytes) -> bytes:
    # DSSE v1: "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body, lengths in ASCII decimal.
    return b"DSSEv1 %d %s %d %s" % (len(payload_type), payload_type, len(payload), payload)


def main(bundle_path: str, pem_path: str) -> int:
    with open(pem_path, "rb") as f:
        raw = load_pem_public_key(f.read()).public_bytes(Encoding.Raw, PublicFormat.Raw)
    # Citadel's keyid (signer_public_key_digest): sha256 of the JSON string of the raw key in hex.
    keyid = "sha256:" + hashlib.sha256(json.dumps(raw.hex()).encode()).hexdigest()
    # securesystemslib's keyids are bare hex: its key object gets the digest without the prefix.
    sslib_keyid = keyid.removeprefix("sha256:")
    key = SSlibKey(sslib_keyid, "ed25519", "ed25519", {"public": raw.hex()})
    with open(bundle_path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    for number, line in enumerate(lines, 1):
        envelope = json.loads(line)
        if envelope["payloadType"] != PAYLOAD_TYPE:
            print(f"line {number}: payloadType {envelope['payloadType']!r}", file=sys.stderr)
            return 1
        (signature,) = envelope["signatures"]
        if signature["keyid"] != keyid:
            print(f"line {number}: keyid {signature['keyid']} is not {keyid}", file=sys.stderr)
            return 1
        payload = base64.b64decode(envelope["payload"], validate=True)
        sig_hex = base64.b64decode(signature["sig"], validate=True).hex()
        try:
            key.verify_signature(Signature(sslib_keyid, sig_hex), pae(envelope["payloadType"].encode(), payload))
        except Exception as error:  # securesystemslib raises UnverifiedSignatureError or VerificationError
            print(f"line {number}: signature does not verify: {error}", file=sys.stderr)
            return 1
        statement = json.loads(payload)
        if statement["_type"] != STATEMENT_TYPE:
            print(f"line {number}: _type {statement['_type']!r}", file=sys.stderr)
            return 1
        subjects = " ".join(f"{s['name']}@{s['digest']['gitCommit']}" for s in statement["subject"])
        print(f"line {number}: ok {statement['predicateType']} {subjects}")
    print(f"{len(lines)} envelopes verified")
    return 0 if lines else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
