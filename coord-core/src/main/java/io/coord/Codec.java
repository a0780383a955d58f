package io.coord;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import java.io.IOException;
import java.util.Objects;

/**
 * JSON for values stored in znodes, with the checks ZooKeeper does not make: a value over the
 * limit is refused <em>before</em> anything is sent ({@link ValueTooLargeException} naming path,
 * size and limit), and bytes that are not the expected JSON are refused with a
 * {@link CodecException} naming the path, the line and column and the problem.
 *
 * <p>Reading is strict: unknown fields are errors, empty data, a byte-order mark, invalid UTF-8
 * and trailing garbage are errors. Input may be hostile (a "JSON bomb"), so the parser's limits
 * are far below Jackson's defaults: nesting at most {@value #MAX_DEPTH} levels, a string at most
 * {@value #MAX_STRING_LENGTH} characters, a number at most {@value #MAX_NUMBER_LENGTH} digits. A
 * breach is a {@link CodecException} naming the path, the position and the limit. Writing checks
 * the same limits, so a value this codec accepts it can always read back (a queue task or a
 * config value that could be written but never decoded would be poison).
 */
public final class Codec<T> {
    public static final int MAX_DEPTH = 64;
    public static final int MAX_STRING_LENGTH = 64 * 1024;
    public static final int MAX_NUMBER_LENGTH = 100;
    private static final String LIMITS = "Coord's JSON limits: nesting " + MAX_DEPTH + " levels, strings "
            + MAX_STRING_LENGTH + " characters, numbers " + MAX_NUMBER_LENGTH + " digits";

    private static final ObjectMapper MAPPER = newMapper();

    private final JavaType type;
    private final int limit;

    private Codec(JavaType type, int limit) {
        this.type = type;
        if (limit <= 0) {
            throw new IllegalArgumentException("limit must be > 0, got " + limit);
        }
        this.limit = limit;
    }

    public static <T> Codec<T> json(Class<T> type) {
        return new Codec<>(MAPPER.constructType(Objects.requireNonNull(type, "type")), CoordSettings.DEFAULT_MAX_VALUE_BYTES);
    }

    public static <T> Codec<T> json(TypeReference<T> type) {
        return new Codec<>(MAPPER.constructType(Objects.requireNonNull(type, "type")), CoordSettings.DEFAULT_MAX_VALUE_BYTES);
    }

    /** The same codec with another size limit (for example 64 KiB for queue tasks). */
    public Codec<T> withLimit(int bytes) {
        return new Codec<>(type, bytes);
    }

    public int limit() {
        return limit;
    }

    /** The shared, strictly configured mapper, for code that needs a tree or another type. */
    public static ObjectMapper mapper() {
        return MAPPER;
    }

    /**
     * Serializes {@code value} for the node at {@code path}. Throws {@link CodecException} if it
     * cannot be serialized or breaks a parser limit (then it could never be read back), and
     * {@link ValueTooLargeException} if it is over the size limit.
     */
    public byte[] encode(CoordPath path, T value) {
        if (value == null) {
            throw new CodecException("value for " + path + " is null");
        }
        byte[] bytes;
        try {
            bytes = MAPPER.writerFor(type).writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
            throw new CodecException("value for " + path + " cannot be serialized as " + type.getTypeName() + ": "
                    + e.getOriginalMessage(), e);
        }
        if (bytes.length > limit) {
            throw new ValueTooLargeException(path.value(), bytes.length, limit);
        }
        checkReadable(path, bytes);
        return bytes;
    }

    /** One token pass with the reading limits: Jackson's writer does not check them itself. */
    private void checkReadable(CoordPath path, byte[] bytes) {
        try (JsonParser parser = MAPPER.getFactory().createParser(bytes)) {
            for (JsonToken t = parser.nextToken(); t != null; t = parser.nextToken()) {
                if (t.isNumeric()) {
                    parser.getNumberValue(); // the parser checks lengths when it reads the value
                } else if (t == JsonToken.VALUE_STRING) {
                    parser.getText();
                }
            }
        } catch (StreamConstraintsException e) {
            throw new CodecException("value for " + path + " cannot be written: " + e.getOriginalMessage() + " ("
                    + LIMITS + "); it could never be read back; nothing was written", e);
        } catch (IOException e) {
            throw new CodecException("value for " + path + " does not read back as JSON: " + e.getMessage(), e);
        }
    }

    /** Parses the data of the node at {@code path}. */
    public T decode(CoordPath path, byte[] data) {
        if (data == null || data.length == 0) {
            throw new CodecException("node " + path + " holds no data; expected JSON for " + type.getTypeName());
        }
        if (data.length > limit) {
            throw new ValueTooLargeException(path.value(), data.length, limit);
        }
        if (data.length >= 3 && (data[0] & 0xff) == 0xEF && (data[1] & 0xff) == 0xBB && (data[2] & 0xff) == 0xBF) {
            throw new CodecException("node " + path + " data starts with a UTF-8 byte-order mark; expected plain UTF-8 JSON");
        }
        try {
            T value = MAPPER.readValue(data, type);
            if (value == null) {
                throw new CodecException("node " + path + " holds JSON null; expected " + type.getTypeName());
            }
            return value;
        } catch (UnrecognizedPropertyException e) {
            throw new CodecException("node " + path + ": unknown field \"" + e.getPropertyName() + "\" at "
                    + where(e.getLocation()) + " for " + type.getTypeName(), e);
        } catch (JsonProcessingException e) {
            StreamConstraintsException limit = constraint(e);
            if (limit != null) {
                throw new CodecException("node " + path + " breaks a JSON limit at " + where(limit.getLocation()) + ": "
                        + limit.getOriginalMessage() + " (" + LIMITS + ", lower than Jackson's defaults: input may be hostile)", e);
            }
            throw new CodecException("node " + path + " is not valid JSON for " + type.getTypeName() + " at "
                    + where(e.getLocation()) + ": " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new CodecException("node " + path + " could not be read: " + e.getMessage(), e);
        }
    }

    /** The limit breach behind {@code e}: databind wraps it when it happens inside a bean. */
    private static StreamConstraintsException constraint(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof StreamConstraintsException s) {
                return s;
            }
        }
        return null;
    }

    private static String where(JsonLocation location) {
        return location == null ? "?" : "line " + location.getLineNr() + ", column " + location.getColumnNr();
    }

    private static ObjectMapper newMapper() {
        JsonFactory factory = JsonFactory.builder()
                .streamReadConstraints(StreamReadConstraints.builder()
                        .maxNestingDepth(MAX_DEPTH)
                        .maxNumberLength(MAX_NUMBER_LENGTH)
                        .maxStringLength(MAX_STRING_LENGTH)
                        .build())
                .build();
        ObjectMapper mapper = new ObjectMapper(factory);
        mapper.enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
        mapper.enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
        mapper.enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);
        mapper.findAndRegisterModules();
        return mapper;
    }

    @Override
    public String toString() {
        return "Codec[json " + type.getTypeName() + ", limit " + limit + "]";
    }
}
