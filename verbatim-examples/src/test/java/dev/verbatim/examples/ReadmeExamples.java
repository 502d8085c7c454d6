package dev.verbatim.examples;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The README's Java code blocks and the example sources they quote. A block is preceded by a line
 * {@code <!-- example: Class#region,region -->}; a region of {@code Class.java} runs from a line
 * {@code // example:region} to the next {@code // end}, and is quoted with its common indentation
 * removed, regions joined by one empty line.
 */
final class ReadmeExamples {
    private static final Pattern MARKER = Pattern.compile("<!-- example: (\\w+)#([\\w,]+) -->");

    /** One quoted block: where it is, what it names, and the text between its fences. */
    record Block(int line, String example, List<String> regions, String text) {}

    private ReadmeExamples() {}

    static Path root() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.exists(dir.resolve("README.md"))) {
            dir = dir.getParent();
        }
        if (dir == null) throw new IllegalStateException("no README.md above " + Path.of("").toAbsolutePath());
        return dir;
    }

    /** Every ```java block of the README, with the marker before it (null example when it has none). */
    static List<Block> blocks(List<String> readme) {
        List<Block> blocks = new ArrayList<>();
        for (int i = 0; i < readme.size(); i++) {
            if (!readme.get(i).strip().equals("```java")) continue;
            String example = null;
            List<String> regions = List.of();
            if (i > 0) {
                Matcher m = MARKER.matcher(readme.get(i - 1).strip());
                if (m.matches()) {
                    example = m.group(1);
                    regions = List.of(m.group(2).split(","));
                }
            }
            int end = i + 1;
            while (end < readme.size() && !readme.get(end).strip().equals("```")) end++;
            blocks.add(new Block(i + 1, example, regions, String.join("\n", readme.subList(i + 1, end))));
            i = end;
        }
        return blocks;
    }

    /** The README with every marked block replaced by what it quotes. */
    static String update(List<String> readme, Path sources) throws IOException {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < readme.size(); i++) {
            out.add(readme.get(i));
            Matcher m = MARKER.matcher(readme.get(i).strip());
            if (!m.matches() || i + 1 >= readme.size() || !readme.get(i + 1).strip().equals("```java")) continue;
            int end = i + 2;
            while (end < readme.size() && !readme.get(end).strip().equals("```")) end++;
            out.add("```java");
            out.addAll(quote(sources, m.group(1), List.of(m.group(2).split(","))).lines().toList());
            out.add("```");
            i = end;
        }
        return String.join("\n", out) + "\n";
    }

    /** The text a block naming {@code example} and {@code regions} must show. */
    static String quote(Path sources, String example, List<String> regions) throws IOException {
        List<String> lines = Files.readAllLines(sources.resolve(example + ".java"));
        List<String> parts = new ArrayList<>();
        for (String region : regions) {
            int start = lines.indexOf(findLine(lines, "// example:" + region));
            int end = start + 1;
            while (end < lines.size() && !lines.get(end).strip().equals("// end")) end++;
            if (end == lines.size()) throw new IllegalStateException(example + ".java: region " + region + " has no // end");
            parts.add(dedent(lines.subList(start + 1, end)));
        }
        return String.join("\n\n", parts);
    }

    private static String findLine(List<String> lines, String marker) {
        for (String l : lines) {
            if (l.strip().equals(marker)) return l;
        }
        throw new IllegalStateException("no line '" + marker + "'");
    }

    static String dedent(List<String> lines) {
        int indent = Integer.MAX_VALUE;
        for (String l : lines) {
            if (!l.isBlank()) indent = Math.min(indent, l.length() - l.stripLeading().length());
        }
        List<String> out = new ArrayList<>();
        for (String l : lines) out.add(l.isBlank() ? "" : l.substring(indent).stripTrailing());
        return String.join("\n", out);
    }
}
