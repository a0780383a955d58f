package io.coord.cli.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code coord demo}'s options: bad values are refused before anything starts. */
class DemoCommandTest {
    private record Result(int code, String out, String err) {
    }

    private static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new DemoCommand());
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args);
        return new Result(code, out.toString(), err.toString());
    }

    @Test
    void tooFewWorkersIsAUsageErrorThatSaysWhy() {
        Result r = run("--workers", "2");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("--workers must be within 3..16, got 2"), r.err());
        assertEquals("", r.out());
    }

    @Test
    void aUiPortOutOfRangeIsAUsageErrorNamingIt() {
        Result r = run("--ui", "--ui-port", "70000");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("--ui-port must be within 0..65535, got 70000"), r.err());
    }

    @Test
    void anEmptyConnectStringIsAUsageError() {
        Result r = run("--connect", " ");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("--connect must be host:port"), r.err());
    }

    @Test
    void helpNamesEveryOptionButTheControlRunsOwn() {
        Result r = run("--help");
        assertEquals(0, r.code());
        for (String option : new String[] {"--workers", "--connect", "--seed"}) {
            assertTrue(r.out().contains(option), option + " missing from\n" + r.out());
        }
        assertTrue(!r.out().contains("--unfenced"), r.out());
    }
}
