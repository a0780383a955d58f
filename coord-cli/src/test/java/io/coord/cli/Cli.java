package io.coord.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

/** Runs the coord command line in this JVM and captures what it prints. */
final class Cli {
    record Result(int exitCode, String out, String err) {
    }

    private Cli() {
    }

    static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.commandLine(new PrintWriter(out, true), new PrintWriter(err, true)).execute(args);
        return new Result(code, out.toString(), err.toString());
    }
}
