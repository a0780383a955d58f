package io.coord.queue;

import com.fasterxml.jackson.databind.JsonNode;
import io.coord.Codec;
import io.coord.CodecException;
import io.coord.CoordPath;
import io.coord.ValueTooLargeException;
import com.fasterxml.jackson.databind.node.POJONode;
import com.fasterxml.jackson.databind.util.RawValue;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * JSON for a queue: the caller's payload (through its {@link Codec}, with the task size limit)
 * embedded in a {@link TaskRecord}. Every refusal at enqueue is a {@link TaskRejectedException}
 * naming the queue and the reason.
 */
final class TaskCodec<T> {
    /** Room for the record's own fields around the payload. */
    static final int RECORD_OVERHEAD = 16 * 1024;

    private final String queue;
    private final Codec<T> payload;
    private final Codec<TaskRecord> records;

    TaskCodec(String queue, Codec<T> payloadCodec, int maxTaskBytes) {
        this.queue = queue;
        this.payload = payloadCodec.withLimit(maxTaskBytes);
        this.records = Codec.json(TaskRecord.class).withLimit(maxTaskBytes + RECORD_OVERHEAD);
    }

    int maxTaskBytes() {
        return payload.limit();
    }

    /**
     * The payload for a new record, or {@link TaskRejectedException} if it cannot be serialized or
     * is too large. Encoded once: the caller's codec writes it (and checks that it reads back), and
     * the bytes go into the record as they are ({@link RawValue}), not parsed into a tree and
     * written again; {@link #encode} then checks the whole record once more with the reading
     * limits, so a record written this way always reads back. Only for records about to be encoded:
     * the node is opaque until then.
     */
    JsonNode encodePayload(CoordPath where, T value) {
        byte[] bytes;
        try {
            bytes = payload.encode(where, value);
        } catch (ValueTooLargeException e) {
            throw new TaskRejectedException("task for queue '" + queue + "' refused: its payload is " + e.size()
                    + " bytes, over the task limit of " + e.limit() + " bytes; nothing was written", e);
        } catch (CodecException e) {
            throw new TaskRejectedException("task for queue '" + queue + "' refused: its payload cannot be serialized: "
                    + e.getMessage() + "; nothing was written", e);
        }
        return new POJONode(new RawValue(new String(bytes, StandardCharsets.UTF_8)));
    }

    /** The payload of the task at {@code where}; {@link CodecException} if it is not a {@code T}. */
    T decodePayload(CoordPath where, JsonNode tree) {
        byte[] bytes;
        try {
            bytes = Codec.mapper().writeValueAsBytes(tree);
        } catch (IOException e) {
            throw new CodecException("payload of " + where + " cannot be re-serialized: " + e.getMessage(), e);
        }
        return payload.decode(where, bytes);
    }

    byte[] encode(CoordPath where, TaskRecord record) {
        try {
            return records.encode(where, record);
        } catch (ValueTooLargeException e) {
            throw new TaskRejectedException("task for queue '" + queue + "' refused: with its fields it is " + e.size()
                    + " bytes, over " + e.limit() + "; nothing was written", e);
        } catch (CodecException e) {
            // A payload at the nesting limit is one level deeper inside its record: it could never be read back.
            throw new TaskRejectedException("task for queue '" + queue + "' refused: its record cannot be written: "
                    + e.getMessage() + "; nothing was written", e);
        }
    }

    TaskRecord decode(CoordPath where, byte[] data) {
        return records.decode(where, data);
    }
}
