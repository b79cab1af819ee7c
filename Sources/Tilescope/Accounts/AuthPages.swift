import HTTPServer

/// The HTML pages of signing in and out and of the IIIF access token service: small, no external resources,
/// every value escaped, scripts allowed only by a per-answer nonce (`Content-Security-Policy`), never cached.
enum AuthPages {
    /// A page answer. `framable`: the token service is loaded in a client's iframe; the others refuse framing
    /// (a login form in another site's frame is a clickjacking target).
    static func response(_ html: String, status: Int = 200, nonce: String, framable: Bool = false) -> Response {
        let frames = framable ? "" : "; frame-ancestors 'none'"
        return Response(status: status, headers: [
            ("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store"),
            ("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-\(nonce)'; form-action 'self'; base-uri 'none'" + frames),
            // `same-origin`, not `no-referrer`: under `no-referrer` a browser sends `Origin: null` with the page's own
            // form posts (Fetch, "serialize a request origin"), which the CSRF check refuses: signing in and out from
            // these pages failed in Chromium. Other sites still get no referrer.
            ("Referrer-Policy", "same-origin"),
        ] + (framable ? [] : [("X-Frame-Options", "DENY")]), body: .bytes(Array(html.utf8)))
    }

    static func page(_ title: String, _ body: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
        <title>\(escaped(title))</title>
        <style>body{font:16px system-ui,sans-serif;max-width:24rem;margin:3rem auto;padding:0 1rem}
        label{display:block;margin:.75rem 0 .25rem}input{width:100%;padding:.4rem;box-sizing:border-box}
        button{margin-top:1rem;padding:.5rem 1rem}.error{color:#a00}</style></head>
        <body><h1>\(escaped(title))</h1>
        \(body)
        </body></html>
        """
    }

    /// The sign-in form. `csrf` is the login cookie's secret, repeated in the form (double submit).
    static func login(action: String, csrf: String, origin: String?, error: String?) -> String {
        let failure = error.map { "<p class=\"error\" role=\"alert\">\(escaped($0))</p>" } ?? ""
        let origin = origin.map { "<input type=\"hidden\" name=\"origin\" value=\"\(escaped($0))\">" } ?? ""
        return page("Sign in", """
            \(failure)<form method="post" action="\(escaped(action))">
            <label for="name">Name</label><input id="name" name="name" autocomplete="username" required autofocus>
            <label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
            <input type="hidden" name="csrf" value="\(escaped(csrf))">\(origin)
            <button type="submit">Sign in</button></form>
            """)
    }

    /// After signing in: a window a IIIF client opened closes itself (the client then asks the token service).
    static func signedIn(_ name: String, nonce: String) -> String {
        page("Signed in", """
            <p>You are signed in as <strong>\(escaped(name))</strong>. You may close this window.</p>
            <p><a href="/">Go to the gallery</a></p>
            <script nonce="\(nonce)">if (window.opener) window.close();</script>
            """)
    }

    /// The sign-out page: a form (a GET never signs anyone out, so a link or an image cannot).
    static func logout(action: String, user: String?, csrf: String?) -> String {
        guard let user, let csrf else { return page("Signed out", "<p>You are not signed in.</p>") }
        return page("Sign out", """
            <p>Signed in as <strong>\(escaped(user))</strong>.</p>
            <form method="post" action="\(escaped(action))"><input type="hidden" name="csrf" value="\(escaped(csrf))">
            <button type="submit">Sign out</button></form>
            """)
    }

    /// IIIF Auth 2.0's token service answer: posts `message` (JSON) to the parent window at `origin`.
    static func token(message: String, origin: String, nonce: String) -> String {
        page("Access token", """
            <script nonce="\(nonce)">window.parent.postMessage(\(scriptSafe(message)), \(scriptSafe(JSON.string(origin))));</script>
            """)
    }

    /// `text` for HTML text and quoted attributes.
    static func escaped(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    /// JSON text made safe inside a `<script>`: no `<` (so no `</script>`), no line separators JavaScript
    /// reads as line ends.
    static func scriptSafe(_ json: String) -> String {
        json.replacingOccurrences(of: "<", with: "\\u003c").replacingOccurrences(of: "\u{2028}", with: "\\u2028")
            .replacingOccurrences(of: "\u{2029}", with: "\\u2029")
    }
}

extension JSON {
    /// A JSON string literal of `text`.
    static func string(_ text: String) -> String {
        String(decoding: encode([text]).dropFirst().dropLast(), as: UTF8.self)
    }
}
