// The Parquet footer, page header and page index structures, as nanstats
// reads and rewrites them.
//
// Written for nanstats from the field numbers of the Parquet format
// (parquet-format, with PARQUET-2249: Statistics.nan_count = 9,
// ColumnOrder.IEEE_754_TOTAL_ORDER = 2, ColumnIndex.nan_counts = 8).
//
// Conventions, chosen so that a footer survives decode -> encode unchanged:
// * every field is optional and has no default, so what a writer left out
//   stays out, and what it set is written back as it was;
// * text fields are binary: names and key/value metadata come back as the
//   exact bytes the writer stored, even when they are not UTF-8;
// * enumerations are plain i32 (values are listed below as constants), so an
//   enumerator from a newer writer is kept rather than refused;
// * every structure of the format is declared, including those nanstats does
//   not use (size and geospatial statistics, encryption, bloom filters,
//   sorting columns); what a newer writer adds beyond this IDL is kept as
//   read by the codec (metadata/compact.py), so no field is dropped as unknown.

// Type
const i32 TYPE_BOOLEAN = 0
const i32 TYPE_INT32 = 1
const i32 TYPE_INT64 = 2
const i32 TYPE_INT96 = 3
const i32 TYPE_FLOAT = 4
const i32 TYPE_DOUBLE = 5
const i32 TYPE_BYTE_ARRAY = 6
const i32 TYPE_FIXED_LEN_BYTE_ARRAY = 7

// FieldRepetitionType
const i32 REPETITION_REQUIRED = 0
const i32 REPETITION_OPTIONAL = 1
const i32 REPETITION_REPEATED = 2
const i32 REPETITION_VECTOR = 3

// PageType
const i32 PAGE_DATA = 0
const i32 PAGE_INDEX = 1
const i32 PAGE_DICTIONARY = 2
const i32 PAGE_DATA_V2 = 3

// BoundaryOrder
const i32 BOUNDARY_UNORDERED = 0
const i32 BOUNDARY_ASCENDING = 1
const i32 BOUNDARY_DESCENDING = 2

struct SizeStatistics {
  1: optional i64 unencoded_byte_array_data_bytes
  2: optional list<i64> repetition_level_histogram
  3: optional list<i64> definition_level_histogram
}

struct BoundingBox {
  1: optional double xmin
  2: optional double xmax
  3: optional double ymin
  4: optional double ymax
  5: optional double zmin
  6: optional double zmax
  7: optional double mmin
  8: optional double mmax
}

struct GeospatialStatistics {
  1: optional BoundingBox bbox
  2: optional list<i32> geospatial_types
}

struct Statistics {
  1: optional binary max
  2: optional binary min
  3: optional i64 null_count
  4: optional i64 distinct_count
  5: optional binary max_value
  6: optional binary min_value
  7: optional bool is_max_value_exact
  8: optional bool is_min_value_exact
  9: optional i64 nan_count
}

struct StringType {}
struct UUIDType {}
struct MapType {}
struct ListType {}
struct VectorType {}
struct EnumType {}
struct DateType {}
struct Float16Type {}
struct NullType {}
struct JsonType {}
struct BsonType {}

struct DecimalType {
  1: optional i32 scale
  2: optional i32 precision
}

struct MilliSeconds {}
struct MicroSeconds {}
struct NanoSeconds {}

union TimeUnit {
  1: MilliSeconds MILLIS
  2: MicroSeconds MICROS
  3: NanoSeconds NANOS
}

struct TimestampType {
  1: optional bool isAdjustedToUTC
  2: optional TimeUnit unit
}

struct TimeType {
  1: optional bool isAdjustedToUTC
  2: optional TimeUnit unit
}

struct IntType {
  1: optional byte bitWidth
  2: optional bool isSigned
}

struct VariantType {
  1: optional byte specification_version
}

struct GeometryType {
  1: optional binary crs
}

struct GeographyType {
  1: optional binary crs
  2: optional i32 algorithm
}

union LogicalType {
  1: StringType STRING
  2: MapType MAP
  3: ListType LIST
  4: EnumType ENUM
  5: DecimalType DECIMAL
  6: DateType DATE
  7: TimeType TIME
  8: TimestampType TIMESTAMP
  10: IntType INTEGER
  11: NullType UNKNOWN
  12: JsonType JSON
  13: BsonType BSON
  14: UUIDType UUID
  15: Float16Type FLOAT16
  16: VariantType VARIANT
  17: GeometryType GEOMETRY
  18: GeographyType GEOGRAPHY
  19: VectorType VECTOR
}

struct SchemaElement {
  1: optional i32 type
  2: optional i32 type_length
  3: optional i32 repetition_type
  4: optional binary name
  5: optional i32 num_children
  6: optional i32 converted_type
  7: optional i32 scale
  8: optional i32 precision
  9: optional i32 field_id
  10: optional LogicalType logicalType
  11: optional i32 vector_length
}

struct DataPageHeader {
  1: optional i32 num_values
  2: optional i32 encoding
  3: optional i32 definition_level_encoding
  4: optional i32 repetition_level_encoding
  5: optional Statistics statistics
}

struct IndexPageHeader {}

struct DictionaryPageHeader {
  1: optional i32 num_values
  2: optional i32 encoding
  3: optional bool is_sorted
}

struct DataPageHeaderV2 {
  1: optional i32 num_values
  2: optional i32 num_nulls
  3: optional i32 num_rows
  4: optional i32 encoding
  5: optional i32 definition_levels_byte_length
  6: optional i32 repetition_levels_byte_length
  7: optional bool is_compressed
  8: optional Statistics statistics
}

struct SplitBlockAlgorithm {}

union BloomFilterAlgorithm {
  1: SplitBlockAlgorithm BLOCK
}

struct XxHash {}

union BloomFilterHash {
  1: XxHash XXHASH
}

struct Uncompressed {}

union BloomFilterCompression {
  1: Uncompressed UNCOMPRESSED
}

struct BloomFilterHeader {
  1: optional i32 numBytes
  2: optional BloomFilterAlgorithm algorithm
  3: optional BloomFilterHash hash
  4: optional BloomFilterCompression compression
}

struct PageHeader {
  1: optional i32 type
  2: optional i32 uncompressed_page_size
  3: optional i32 compressed_page_size
  4: optional i32 crc
  5: optional DataPageHeader data_page_header
  6: optional IndexPageHeader index_page_header
  7: optional DictionaryPageHeader dictionary_page_header
  8: optional DataPageHeaderV2 data_page_header_v2
}

struct KeyValue {
  1: optional binary key
  2: optional binary value
}

struct SortingColumn {
  1: optional i32 column_idx
  2: optional bool descending
  3: optional bool nulls_first
}

struct PageEncodingStats {
  1: optional i32 page_type
  2: optional i32 encoding
  3: optional i32 count
}

struct ColumnMetaData {
  1: optional i32 type
  2: optional list<i32> encodings
  3: optional list<binary> path_in_schema
  4: optional i32 codec
  5: optional i64 num_values
  6: optional i64 total_uncompressed_size
  7: optional i64 total_compressed_size
  8: optional list<KeyValue> key_value_metadata
  9: optional i64 data_page_offset
  10: optional i64 index_page_offset
  11: optional i64 dictionary_page_offset
  12: optional Statistics statistics
  13: optional list<PageEncodingStats> encoding_stats
  14: optional i64 bloom_filter_offset
  15: optional i32 bloom_filter_length
  16: optional SizeStatistics size_statistics
  17: optional GeospatialStatistics geospatial_statistics
}

struct EncryptionWithFooterKey {}

struct EncryptionWithColumnKey {
  1: optional list<binary> path_in_schema
  2: optional binary key_metadata
}

union ColumnCryptoMetaData {
  1: EncryptionWithFooterKey ENCRYPTION_WITH_FOOTER_KEY
  2: EncryptionWithColumnKey ENCRYPTION_WITH_COLUMN_KEY
}

struct ColumnChunk {
  1: optional binary file_path
  2: optional i64 file_offset
  3: optional ColumnMetaData meta_data
  4: optional i64 offset_index_offset
  5: optional i32 offset_index_length
  6: optional i64 column_index_offset
  7: optional i32 column_index_length
  8: optional ColumnCryptoMetaData crypto_metadata
  9: optional binary encrypted_column_metadata
}

struct RowGroup {
  1: optional list<ColumnChunk> columns
  2: optional i64 total_byte_size
  3: optional i64 num_rows
  4: optional list<SortingColumn> sorting_columns
  5: optional i64 file_offset
  6: optional i64 total_compressed_size
  7: optional i16 ordinal
}

struct TypeDefinedOrder {}
struct IEEE754TotalOrder {}
struct Int96TimestampOrder {}

union ColumnOrder {
  1: TypeDefinedOrder TYPE_ORDER
  2: IEEE754TotalOrder IEEE_754_TOTAL_ORDER
  3: Int96TimestampOrder INT96_TIMESTAMP_ORDER
}

struct PageLocation {
  1: optional i64 offset
  2: optional i32 compressed_page_size
  3: optional i64 first_row_index
}

struct OffsetIndex {
  1: optional list<PageLocation> page_locations
  2: optional list<i64> unencoded_byte_array_data_bytes
}

struct ColumnIndex {
  1: optional list<bool> null_pages
  2: optional list<binary> min_values
  3: optional list<binary> max_values
  4: optional i32 boundary_order
  5: optional list<i64> null_counts
  6: optional list<i64> repetition_level_histograms
  7: optional list<i64> definition_level_histograms
  8: optional list<i64> nan_counts
}

struct AesGcmV1 {
  1: optional binary aad_prefix
  2: optional binary aad_file_unique
  3: optional bool supply_aad_prefix
}

struct AesGcmCtrV1 {
  1: optional binary aad_prefix
  2: optional binary aad_file_unique
  3: optional bool supply_aad_prefix
}

union EncryptionAlgorithm {
  1: AesGcmV1 AES_GCM_V1
  2: AesGcmCtrV1 AES_GCM_CTR_V1
}

struct FileMetaData {
  1: optional i32 version
  2: optional list<SchemaElement> schema
  3: optional i64 num_rows
  4: optional list<RowGroup> row_groups
  5: optional list<KeyValue> key_value_metadata
  6: optional binary created_by
  7: optional list<ColumnOrder> column_orders
  8: optional EncryptionAlgorithm encryption_algorithm
  9: optional binary footer_signing_key_metadata
}

struct FileCryptoMetaData {
  1: optional EncryptionAlgorithm encryption_algorithm
  2: optional binary key_metadata
}
