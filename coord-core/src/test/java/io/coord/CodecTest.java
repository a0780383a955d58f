package io.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Bad-input rows 11 (size, before sending) and 14–17 (what the codec refuses), with path and problem named. */
class CodecTest {
    record Settings(String url, int poolSize) {
    }

    static final CoordPath PATH = CoordPath.of("/config/app/db");
    final Codec<Settings> codec = Codec.json(Settings.class);

    @Test
    void roundTripKeepsTheValue() {
        Settings s = new Settings("jdbc:x", 8);
        assertEquals(s, codec.decode(PATH, codec.encode(PATH, s)));
    }

    @Test
    void row11OversizeValueIsRefusedBeforeSendingNamingPathSizeAndLimit() {
        Codec<Settings> small = codec.withLimit(64);
        ValueTooLargeException e = assertThrows(ValueTooLargeException.class,
                () -> small.encode(PATH, new Settings("x".repeat(100), 1)));
        assertEquals(PATH.value(), e.path());
        assertEquals(64, e.limit());
        assertTrue(e.size() > 64);
        assertTrue(e.getMessage().contains(PATH.value()) && e.getMessage().contains("64"), e.getMessage());
    }

    @Test
    void row11DefaultLimitRefusesAOneMegabyteValue() {
        Codec<Map> maps = Codec.json(Map.class);
        ValueTooLargeException e = assertThrows(ValueTooLargeException.class,
                () -> maps.encode(PATH, Map.of("blob", "x".repeat(1_048_576))));
        assertEquals(CoordSettings.DEFAULT_MAX_VALUE_BYTES, e.limit());
    }

    @Test
    void row14MalformedJsonNamesPathLineAndColumn() {
        CodecException e = assertThrows(CodecException.class,
                () -> codec.decode(PATH, "{\"url\": \"x\",\n \"poolSize\": }".getBytes(StandardCharsets.UTF_8)));
        assertTrue(e.getMessage().contains(PATH.value()), e.getMessage());
        assertTrue(e.getMessage().contains("line 2"), e.getMessage());
    }

    @Test
    void row15UnknownFieldIsRefusedNamingTheField() {
        CodecException e = assertThrows(CodecException.class,
                () -> codec.decode(PATH, "{\"url\":\"x\",\"poolSize\":1,\"poolSise\":2}".getBytes(StandardCharsets.UTF_8)));
        assertTrue(e.getMessage().contains("\"poolSise\""), e.getMessage());
    }

    @Test
    void row15WrongTypeIsRefused() {
        CodecException e = assertThrows(CodecException.class,
                () -> codec.decode(PATH, "{\"url\":\"x\",\"poolSize\":\"many\"}".getBytes(StandardCharsets.UTF_8)));
        assertTrue(e.getMessage().contains(PATH.value()), e.getMessage());
    }

    @Test
    void row16EmptyNullBomAndInvalidUtf8AreRefused() {
        assertThrows(CodecException.class, () -> codec.decode(PATH, new byte[0]));
        assertThrows(CodecException.class, () -> codec.decode(PATH, null));
        assertThrows(CodecException.class, () -> codec.decode(PATH, "null".getBytes(StandardCharsets.UTF_8)));
        byte[] bom = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF, '{', '}'};
        CodecException e = assertThrows(CodecException.class, () -> codec.decode(PATH, bom));
        assertTrue(e.getMessage().contains("byte-order mark"), e.getMessage());
        byte[] latin1 = "{\"url\":\"caf\u00e9\",\"poolSize\":1}".getBytes(StandardCharsets.ISO_8859_1);
        assertThrows(CodecException.class, () -> codec.decode(PATH, latin1));
    }

    @Test
    void row16TrailingGarbageIsRefused() {
        assertThrows(CodecException.class,
                () -> codec.decode(PATH, "{\"url\":\"x\",\"poolSize\":1} {}".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void row17DeepNestingAndHugeNumbersAreRefusedBelowJacksonDefaults() {
        Codec<Object> any = Codec.json(Object.class);
        String deep = "[".repeat(Codec.MAX_DEPTH + 1) + "]".repeat(Codec.MAX_DEPTH + 1);
        CodecException e = assertThrows(CodecException.class, () -> any.decode(PATH, deep.getBytes(StandardCharsets.UTF_8)));
        assertTrue(e.getMessage().contains(PATH.value()), e.getMessage());
        String ok = "[".repeat(Codec.MAX_DEPTH) + "]".repeat(Codec.MAX_DEPTH);
        any.decode(PATH, ok.getBytes(StandardCharsets.UTF_8));
        String bigNumber = "1".repeat(Codec.MAX_NUMBER_LENGTH + 1);
        assertThrows(CodecException.class, () -> any.decode(PATH, bigNumber.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void unserializableValueIsACodecErrorNamingThePath() {
        Codec<Object> any = Codec.json(Object.class);
        CodecException e = assertThrows(CodecException.class, () -> any.encode(PATH, new Object()));
        assertTrue(e.getMessage().contains(PATH.value()), e.getMessage());
    }
}
