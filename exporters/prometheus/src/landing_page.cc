#include "landing_page.h"

#include <fmt/format.h>

namespace ibpulse::exporters::prometheus {
namespace {

// Cell classes: the link's state (ok, degraded, failing), its congestion role (root, victim)
// and flags (held: its switch is down or just back; maint: in health.maintenance).
constexpr const char* kStyle = R"(
body{font-family:sans-serif;margin:1em;color:#222}
h1{font-size:1.4em}h2{font-size:1.1em;margin-top:1.2em}
table{border-collapse:collapse;font-size:.85em}td,th{padding:2px 8px;text-align:left}
tr:nth-child(even){background:#f3f3f3}
.grid td.name{white-space:nowrap;font-size:.8em;padding-right:6px}
.cells{display:flex;flex-wrap:wrap;gap:1px;max-width:70em}
.cell{width:10px;height:10px;box-sizing:border-box}
.ok{background:#43a047}.degraded{background:#f9a825}.failing{background:#c62828}
.root{border:2px solid #000}.victim{border:2px dotted #6a1b9a}
.held,.maint{background-image:repeating-linear-gradient(45deg,#fff8 0 2px,#0000 2px 4px)}
.nolink{background:#ccc}.down{color:#c62828;font-weight:bold}.legend .cell{display:inline-block;vertical-align:middle}
)";

constexpr const char* kScript = R"(
const STATES=['ok','degraded','failing'],ROLES=['','root','victim'];
function esc(s){return String(s).replace(/[&<>"]/g,c=>({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'}[c]));}
function end(e){return e?esc(e.node)+'/'+e.port:'-';}
function ber(e){return e&&typeof e.symbol_ber==='number'?e.symbol_ber.toExponential(1):'-';}
function show(h,g){
  const t0=performance.now(),s=h.summary||{};
  document.getElementById('summary').textContent=
    `links ${s.links||0}: ${s.failing||0} failing, ${s.degraded||0} degraded, ${s.ok||0} ok; `+
    `congestion roots ${s.roots||0}, victims ${s.victims||0}; switches down ${(s.switches_down||[]).length}`;
  let rows='';
  for(const l of (h.links||[]).filter(l=>l.state!=='ok').slice(0,50))
    rows+=`<tr class="link ${l.state}-link"><td>${l.state}</td><td>${end(l.a)}</td><td>${end(l.b)}</td>`+
      `<td>${ber(l.a)}</td><td>${ber(l.b)}</td><td>${esc((l.reasons||[]).join(', '))}</td></tr>`;
  document.getElementById('links').innerHTML=rows||'<tr><td colspan="6">none</td></tr>';
  rows='';
  for(const r of (h.roots||[]).slice(0,50))
    rows+=`<tr class="congestion-root"><td>${end(r)}</td><td>${end(r.peer)}</td><td>${r.victims}</td>`+
      `<td>${r.stuck?'stuck receiver':'hot spot'}</td></tr>`;
  document.getElementById('roots').innerHTML=rows||'<tr><td colspan="4">none</td></tr>';
  const parts=[];
  for(const sw of g.switches||[]){
    parts.push(`<tr data-guid="${sw.node_guid}"><td class="name${sw.down?' down':''}">${esc(sw.node)}</td><td><div class="cells">`);
    for(const [port,state,role,flags] of sw.ports){
      const cls=['cell',STATES[state]||'ok',ROLES[role]||'',flags&1?'held':'',flags&2?'maint':'',flags&4?'nolink':''].join(' ');
      parts.push(`<div class="${cls}" data-port="${port}" title="${esc(sw.node)}/${port} ${STATES[state]} ${ROLES[role]||''}"></div>`);
    }
    parts.push('</div></td></tr>');
  }
  document.getElementById('grid').innerHTML=parts.join('');
  document.body.dataset.sequence=h.sequence;
  document.body.dataset.renderMs=Math.round(performance.now()-t0);
}
async function refresh(){
  try{
    const [h,g]=await Promise.all([fetch('/api/health').then(r=>r.json()),fetch('/api/health/grid').then(r=>r.json())]);
    show(h,g);document.getElementById('error').textContent='';
  }catch(e){document.getElementById('error').textContent='refresh failed: '+e;}
}
refresh();setInterval(refresh,5000);
)";

}  // namespace

std::string landing_page(const LandingFacts& f) {
  return fmt::format(
      "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>ibpulse</title><style>{}</style>"
      "</head><body><h1>ibpulse {}</h1>"
      "<p><a href=\"/metrics\">/metrics</a>: every port's counters (Prometheus text format); "
      "<a href=\"/metrics/self\">/metrics/self</a>: the daemon's own metrics alone; "
      "<a href=\"/api/health\">/api/health</a>: link health and congestion as JSON</p>"
      "<p>Fabric: {} nodes, {} ports; {} in the last snapshot.</p>"
      "<p>Sweeps: {}; the last one took {:.3f} s with {} stale ports.</p>"
      "<h2>Fabric health</h2><p id=\"summary\">waiting for the first judgement</p>"
      "<p id=\"error\" class=\"down\"></p>"
      "<p class=\"legend\"><span class=\"cell ok\"></span> ok <span class=\"cell degraded\"></span>"
      " degraded <span class=\"cell failing\"></span> failing <span class=\"cell nolink\"></span> "
      "no "
      "link <span class=\"cell ok root\"></span>"
      " congestion root <span class=\"cell ok victim\"></span> victim <span class=\"cell ok "
      "held\"></span> held or in maintenance</p>"
      "<table class=\"grid\"><tbody id=\"grid\"></tbody></table>"
      "<h2>Worst links</h2><table><thead><tr><th>state</th><th>port</th><th>peer</th>"
      "<th>symbol BER</th><th>peer's BER</th><th>reasons</th></tr></thead>"
      "<tbody id=\"links\"></tbody></table>"
      "<h2>Congestion roots</h2><table><thead><tr><th>root</th><th>feeds</th><th>victims</th>"
      "<th>kind</th></tr></thead><tbody id=\"roots\"></tbody></table>"
      "<script>{}</script></body></html>\n",
      kStyle, IBPULSE_VERSION, f.nodes, f.ports, f.snapshot_ports, f.sweeps, f.last_sweep_seconds,
      f.stale, kScript);
}

}  // namespace ibpulse::exporters::prometheus
