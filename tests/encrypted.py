"""Encrypted Parquet files written by pyarrow, for the tests that refuse them.

The key management service is in memory (as in pyarrow's own tests): a data
key is "wrapped" by prefixing the master key, which is all a test needs.
"""

from __future__ import annotations

import base64

import pyarrow as pa
import pyarrow.parquet as papq
import pyarrow.parquet.encryption as pe

_MASTER_KEYS = {"footer_key": "0123456789012345", "column_key": "1234567890123450"}


class _InMemoryKms(pe.KmsClient):
    def __init__(self, config: pe.KmsConnectionConfig) -> None:
        pe.KmsClient.__init__(self)
        self._keys = config.custom_kms_conf

    def wrap_key(self, key_bytes: bytes, master_key_identifier: str) -> bytes:
        return base64.b64encode(self._keys[master_key_identifier].encode() + key_bytes)

    def unwrap_key(self, wrapped_key: bytes, master_key_identifier: str) -> bytes:
        master = self._keys[master_key_identifier].encode()
        raw = base64.b64decode(wrapped_key)
        assert raw.startswith(master)
        return raw[len(master):]


def write_encrypted(path: str, table: pa.Table, *, plaintext_footer: bool,
                    encrypted_columns: list[str]) -> None:
    """Write ``table`` to ``path`` encrypted, with an encrypted or a plaintext footer."""
    kms = pe.KmsConnectionConfig(custom_kms_conf=_MASTER_KEYS)
    factory = pe.CryptoFactory(_InMemoryKms)
    config = pe.EncryptionConfiguration(
        footer_key="footer_key", column_keys={"column_key": encrypted_columns},
        plaintext_footer=plaintext_footer, data_key_length_bits=128)
    props = factory.file_encryption_properties(kms, config)
    with papq.ParquetWriter(path, table.schema, encryption_properties=props,
                            write_page_index=True) as writer:
        writer.write_table(table)
