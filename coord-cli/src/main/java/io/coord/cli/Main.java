package io.coord.cli;

import io.coord.ConnectionLostException;
import io.coord.CoordTimeoutException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine;

/** Entry point of the CLI jar: runs {@link CoordCommand} and exits with its code. */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        PrintWriter out = new PrintWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), true);
        PrintWriter err = new PrintWriter(new OutputStreamWriter(System.err, StandardCharsets.UTF_8), true);
        int code = commandLine(out, err).execute(args);
        out.flush();
        err.flush();
        System.exit(code);
    }

    /** The command line with its output streams and the one-line error handling; what tests run in-process. */
    static CommandLine commandLine(PrintWriter out, PrintWriter err) {
        CommandLine cl = new CommandLine(new CoordCommand());
        cl.setOut(out);
        cl.setErr(err);
        cl.setParameterExceptionHandler((ex, args) -> {
            CommandLine command = ex.getCommandLine();
            PrintWriter e = command.getErr();
            String name = command.getCommandSpec().qualifiedName();
            e.println(name + ": " + ex.getMessage());
            CommandLine.UnmatchedArgumentException.printSuggestions(ex, e);
            e.println("Try '" + name + " --help' for more information.");
            e.flush();
            return CoordCommand.USAGE;
        });
        cl.setExecutionExceptionHandler((ex, command, parseResult) -> {
            command.getErr().println(command.getCommandSpec().qualifiedName() + ": " + oneLine(ex));
            if (Boolean.getBoolean("coord.debug")) {
                ex.printStackTrace(command.getErr());
            }
            command.getErr().flush();
            if (ex instanceof InterruptedException) {
                Thread.currentThread().interrupt();
                return CoordCommand.INTERRUPTED;
            }
            return ex instanceof CoordTimeoutException || ex instanceof ConnectionLostException
                    ? CoordCommand.UNAVAILABLE : CoordCommand.FAILED;
        });
        return cl;
    }

    /** The exception's message, followed by its root cause's where that adds something; never a stack trace. */
    static String oneLine(Throwable ex) {
        String message = ex.getMessage() == null ? ex.getClass().getSimpleName() : ex.getMessage();
        Throwable root = ex;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        if (root != ex) {
            String cause = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
            if (!message.contains(cause)) {
                message = message + ": " + cause;
            }
        }
        return message.replaceAll("\\s*\\R\\s*", " ");
    }
}
