package io.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Bad-input rows 11 (size, before sending) and 14–17 (what the codec refuses, JSON bombs included), with path and problem named. */
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
        assertNames(assertThrows(CodecException.class, () -> codec.decode(PATH, new byte[0])), "holds no data");
        assertNames(assertThrows(CodecException.class, () -> codec.decode(PATH, null)), "holds no data");
        assertNames(assertThrows(CodecException.class, () -> codec.decode(PATH, "null".getBytes(StandardCharsets.UTF_8))),
                "holds JSON null");
        byte[] bom = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF, '{', '}'};
        assertNames(assertThrows(CodecException.class, () -> codec.decode(PATH, bom)), "byte-order mark");
        byte[] latin1 = "{\"url\":\"caf\u00e9\",\"poolSize\":1}".getBytes(StandardCharsets.ISO_8859_1);
        assertNames(assertThrows(CodecException.class, () -> codec.decode(PATH, latin1)), "UTF-8");
    }

    @Test
    void row16TrailingGarbageIsRefused() {
        assertNames(assertThrows(CodecException.class,
                () -> codec.decode(PATH, "{\"url\":\"x\",\"poolSize\":1} {}".getBytes(StandardCharsets.UTF_8))), "line 1");
    }

    /** A codec error names the node and what was wrong with its data, and is final. */
    private static void assertNames(CodecException e, String what) {
        assertTrue(e.getMessage().contains(PATH.value()) && e.getMessage().contains(what), "names the node and \"" + what + "\": "
                + e.getMessage());
        assertFalse(e.retryable(), "bad data is final");
    }

    @Test
    void row17DeepNestingIsRefusedNamingPathAndLimit() {
        Codec<Object> any = Codec.json(Object.class);
        String deep = "[".repeat(Codec.MAX_DEPTH + 1) + "]".repeat(Codec.MAX_DEPTH + 1);
        CodecException e = assertThrows(CodecException.class, () -> any.decode(PATH, utf8(deep)));
        assertNamesLimit(e, "nesting", Codec.MAX_DEPTH);
        String ok = "[".repeat(Codec.MAX_DEPTH) + "]".repeat(Codec.MAX_DEPTH);
        any.decode(PATH, utf8(ok));
    }

    @Test
    void row17LongStringIsRefusedNamingPathAndLimitEvenInsideABean() {
        String tooLong = "x".repeat(Codec.MAX_STRING_LENGTH + 1);
        CodecException e = assertThrows(CodecException.class,
                () -> codec.decode(PATH, utf8("{\"url\":\"" + tooLong + "\",\"poolSize\":1}")));
        assertNamesLimit(e, "String value length", Codec.MAX_STRING_LENGTH);
        Codec<Object> any = Codec.json(Object.class);
        assertNamesLimit(assertThrows(CodecException.class, () -> any.decode(PATH, utf8("\"" + tooLong + "\""))),
                "String value length", Codec.MAX_STRING_LENGTH);
        String atLimit = "x".repeat(Codec.MAX_STRING_LENGTH);
        assertEquals(atLimit, codec.decode(PATH, utf8("{\"url\":\"" + atLimit + "\",\"poolSize\":1}")).url());
    }

    @Test
    void row17LongNumberIsRefusedNamingPathAndLimit() {
        Codec<Object> any = Codec.json(Object.class);
        String bigNumber = "1".repeat(Codec.MAX_NUMBER_LENGTH + 1);
        assertNamesLimit(assertThrows(CodecException.class, () -> any.decode(PATH, utf8(bigNumber))), "Number value length",
                Codec.MAX_NUMBER_LENGTH);
        assertNamesLimit(assertThrows(CodecException.class, () -> any.decode(PATH, utf8("[0." + bigNumber + "]"))),
                "Number value length", Codec.MAX_NUMBER_LENGTH);
        assertNamesLimit(assertThrows(CodecException.class, () -> codec.decode(PATH,
                utf8("{\"url\":\"x\",\"poolSize\":" + bigNumber + "}"))), "Number value length", Codec.MAX_NUMBER_LENGTH);
    }

    /** What could never be read back is never written: a poisoned task or config value is worse than a refused one. */
    @Test
    void row17AValueOverAParserLimitIsRefusedAtEncodeToo() {
        CodecException string = assertThrows(CodecException.class,
                () -> codec.encode(PATH, new Settings("x".repeat(Codec.MAX_STRING_LENGTH + 1), 1)));
        assertNamesLimit(string, "String value length", Codec.MAX_STRING_LENGTH);
        assertTrue(string.getMessage().contains("nothing was written"), string.getMessage());
        Codec<Object> any = Codec.json(Object.class);
        Object nested = List.of();
        for (int i = 0; i < Codec.MAX_DEPTH; i++) {
            nested = List.of(nested);
        }
        Object tooDeep = nested;
        assertNamesLimit(assertThrows(CodecException.class, () -> any.encode(PATH, tooDeep)), "depth", Codec.MAX_DEPTH);
        BigInteger huge = new BigInteger("9".repeat(Codec.MAX_NUMBER_LENGTH + 1));
        assertNamesLimit(assertThrows(CodecException.class, () -> any.encode(PATH, List.of(huge))), "Number value length",
                Codec.MAX_NUMBER_LENGTH);
        Settings atLimit = new Settings("x".repeat(Codec.MAX_STRING_LENGTH), 1);
        assertEquals(atLimit, codec.decode(PATH, codec.encode(PATH, atLimit)), "what may be written reads back");
    }

    private static void assertNamesLimit(CodecException e, String what, int limit) {
        String m = e.getMessage();
        assertTrue(m.contains(PATH.value()) && m.contains(what) && m.contains(Integer.toString(limit))
                && m.contains("Coord's JSON limits"), "names the path, the rule and the limit: " + m);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void unserializableValueIsACodecErrorNamingThePath() {
        Codec<Object> any = Codec.json(Object.class);
        CodecException e = assertThrows(CodecException.class, () -> any.encode(PATH, new Object()));
        assertTrue(e.getMessage().contains(PATH.value()), e.getMessage());
    }
}
