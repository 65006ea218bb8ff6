package io.kvroute.local.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link in README.md and docs/ resolves: the file it names exists, and an anchor
 * names a heading of that file (GitHub's slugs). Links inside fenced code blocks are not links.
 */
class DocsLinksTest {
    private static final Path ROOT = Path.of("..");
    private static final Pattern LINK = Pattern.compile("!?\\[[^\\]]*\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");

    @Test
    void shouldResolveEveryRelativeLink() throws IOException {
        List<Path> pages = new ArrayList<>();
        pages.add(ROOT.resolve("README.md"));
        try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        List<String> broken = new ArrayList<>();
        for (Path page : pages) {
            for (String target : links(page)) {
                String problem = check(page, target);
                if (problem != null) {
                    broken.add(ROOT.relativize(page) + ": (" + target + ") " + problem);
                }
            }
        }
        assertThat(broken).withFailMessage("broken relative links:%n  %s", String.join("\n  ", broken)).isEmpty();
    }

    @Test
    void shouldSlugHeadingsAsGitHubDoes() {
        assertThat(slug("Without KV events (vLLM and SGLang behind kvroute today)"))
                .isEqualTo("without-kv-events-vllm-and-sglang-behind-kvroute-today");
        assertThat(slug("Reading `kvroute.responses` yourself: the rule")).isEqualTo("reading-kvrouteresponses-yourself-the-rule");
    }

    private static List<String> links(Path page) throws IOException {
        List<String> out = new ArrayList<>();
        boolean fenced = false;
        for (String line : Files.readAllLines(page)) {
            if (line.stripLeading().startsWith("```")) {
                fenced = !fenced;
                continue;
            }
            if (fenced) {
                continue;
            }
            Matcher m = LINK.matcher(line.replaceAll("`[^`]*`", ""));
            while (m.find()) {
                String target = m.group(1);
                if (!target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
                    out.add(target);
                }
            }
        }
        return out;
    }

    private static String check(Path page, String target) throws IOException {
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        String anchor = hash < 0 ? null : target.substring(hash + 1);
        Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
        if (!Files.exists(resolved)) {
            return "no such file";
        }
        if (anchor != null && resolved.toString().endsWith(".md") && !anchors(resolved).contains(anchor)) {
            return "no heading with anchor #" + anchor;
        }
        return null;
    }

    private static Set<String> anchors(Path page) throws IOException {
        Set<String> out = new HashSet<>();
        boolean fenced = false;
        for (String line : Files.readAllLines(page)) {
            if (line.stripLeading().startsWith("```")) {
                fenced = !fenced;
            } else if (!fenced && line.matches("^#{1,6} .*")) {
                String base = slug(line.replaceFirst("^#{1,6} ", ""));
                String anchor = base;
                for (int n = 1; !out.add(anchor); n++) {
                    anchor = base + "-" + n;
                }
            }
        }
        return out;
    }

    /** GitHub's heading anchor: lower case, punctuation but '-' and '_' removed, spaces to '-'. */
    static String slug(String heading) {
        return heading.strip().toLowerCase(Locale.ROOT)
                .replaceAll("[^\\p{L}\\p{N}\\s_-]", "")
                .replace(' ', '-');
    }
}
