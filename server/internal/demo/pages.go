package demo

import "github.com/icm-tool/icm/server/internal/demo/canned"

// The demo's pages on the fixture site: what its search finds and its
// reader reads. Each names itself (guide-install, guide-api) so the canned
// reader answers can tell them apart.
const (
	pathInstall = "/guide/install"
	pathAPI     = "/guide/api"
)

var pages = map[string]canned.Page{
	pathInstall: {Title: "Install Ollama and pull a model", Body: `<h1>Install Ollama and pull a model</h1>
<p>This page (guide-install) was written for icm's demo; it stands in for a real install guide.</p>
<h2>Install</h2>
<p>On Linux, run the install script from the download page. On macOS, install the app. Both put an
<code>ollama</code> command on the PATH.</p>
<h2>Start the server</h2>
<p>Run <code>ollama serve</code>. The server listens on 127.0.0.1:11434 unless the OLLAMA_HOST variable
names another address. Where the installer set Ollama up as a system service it already runs, and a
second <code>ollama serve</code> fails because the port is taken.</p>
<h2>Pull a model</h2>
<p>Run <code>ollama pull NAME</code> once to download a model, and <code>ollama list</code> to see what is
installed. <code>ollama run NAME</code> opens a prompt in the terminal, the quickest check that it answers.
The first answer is slow while the model loads into memory.</p>`},
	pathAPI: {Title: "Call the local chat API", Body: `<h1>Call the local chat API</h1>
<p>This page (guide-api) was written for icm's demo; it stands in for a real API reference.</p>
<h2>The request</h2>
<p>POST a JSON object to http://127.0.0.1:11434/api/chat with the model's name, a list of messages and
<code>"stream": false</code> to get the whole answer as one object.</p>
<h2>The answer</h2>
<p>The text is in <code>message.content</code>. Without <code>"stream": false</code> the server sends one
JSON object per line as the answer is generated, which a plain JSON parser cannot read in one go.</p>
<h2>When it fails</h2>
<p>A refused connection means no server listens on the port: start one.</p>`},
}
