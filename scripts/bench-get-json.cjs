// One keep-alive GET, read and parsed as JSON: what the direct baseline of scripts/bench.mjs and
// both reference servers do per upstream request, so all of them pay exactly the same.
const http = require('node:http');

function getJson(url, key, agent) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { agent, headers: { authorization: `Bearer ${key}` } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        body += chunk;
      });
      res.once('end', () => resolve(JSON.parse(body)));
    });
    req.once('error', reject);
    req.end();
  });
}

module.exports = { getJson };
