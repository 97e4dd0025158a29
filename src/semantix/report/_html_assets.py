"""The HTML report's inline style sheet and script (one file, no network: both go into the page)."""

__all__ = ["CSS", "JS"]

CSS = """
:root{--pass:#1a7f37;--fail:#cf222e;--error:#8250df;--bl:#bf8700;--tp:#9a6700;--line:#d0d7de;
--muted:#57606a}
*{box-sizing:border-box}
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;
padding:16px 24px;max-width:1600px;color:#1f2328;background:#fff}
h1{font-size:22px;margin:0 0 8px}h2{font-size:18px;margin:28px 0 6px}h3{font-size:15px}
code,pre,.id{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px}
pre{white-space:pre-wrap;word-break:break-word;margin:4px 0;max-height:24em;overflow:auto;
background:#f6f8fa;padding:6px}
.totals{list-style:none;padding:0;display:flex;gap:20px;margin:4px 0 8px;font-size:15px}
.totals b{font-size:20px}
.meta{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:0}
.meta dt{color:var(--muted)}.meta dd{margin:0}.meta ul{margin:0;padding:0;list-style:none}
nav{margin:12px 0;padding:6px 0;border-top:1px solid var(--line);border-bottom:1px solid var(--line)}
.hint,small,.d{color:var(--muted)}.d,small{font-size:12px}
table{border-collapse:collapse;width:100%}
th,td{border-bottom:1px solid var(--line);padding:4px 6px;text-align:left;vertical-align:top}
th{background:#f6f8fa;white-space:nowrap}td.n{text-align:right;white-space:nowrap}
/* The assertions table lays out as a grid of fixed columns so that the browser skips
   rows off screen (content-visibility); without CSS it is a plain table. */
.grid,.grid thead,.grid tbody{display:block}
/* The columns' tracks are in the page's own style: a column no row fills is left out. */
.grid tr{display:grid;border-bottom:1px solid var(--line)}
.grid td,.grid th{display:block;border:0;overflow-wrap:break-word;min-width:0}.grid tr[hidden]{display:none}
.grid tbody tr{content-visibility:auto;contain-intrinsic-size:auto 3.5em}
.grid thead{position:sticky;top:0;z-index:1}
th[data-k]{cursor:pointer}th[data-sort=ascending]::after{content:" ▲"}
th[data-sort=descending]::after{content:" ▼"}
.grid .n{text-align:right}
.v{font-weight:600;white-space:nowrap}
.pass.v,.k.pass,b.pass{color:var(--pass)}.fail.v,.k.fail,b.fail{color:var(--fail)}
.error.v,.err{color:var(--error)}small.bl,b.bl,.k.bl,li.bl{color:var(--bl)}
.v small.bl{display:block;font-weight:400}
tr.fail{background:#ffebe9}tr.error{background:#fbefff}tr.bl.pass{background:#fff8c5}
tr:target{outline:2px solid #0969da}.pass>.v{color:var(--pass)}.fail>.v{color:var(--fail)}
.error>.v{color:var(--error)}.xfail>.v,.skip>.v,.xfail.v,.skip.v{color:var(--muted)}
.xpass>.v,.xpass.v{color:var(--bl)}tr.xpass{background:#fff8c5}
small.tp,b.tp,li.tp{color:var(--tp)}.v small.tp{display:block;font-weight:400}
summary{cursor:pointer}details,span.out,span.ev,span.err{white-space:pre-wrap}
details>summary{list-style:none}
details>summary::-webkit-details-marker{display:none}
details:not([open])>summary::after{content:"… (" attr(data-n) ")";color:var(--muted)}
.ja{font-size:12px;color:var(--muted);font-style:italic}
b.lf{font-weight:600}b.nj{color:var(--muted);font-weight:600}
.dm{font-size:12px;color:var(--muted)}.dm>summary{display:inline}
details.dm:not([open])>summary::after{content:"… more"}details.dm[open]>summary::after{content:""}
.dr::after{white-space:pre-wrap}
.ds::after{display:block;font-size:12px;color:var(--muted)}
#controls{margin:8px 0}#q{width:28em;padding:4px}
figure{margin:12px 0}figcaption{margin-bottom:2px}
svg text{font-size:10px;fill:var(--muted);text-anchor:middle}
.strip .ax{stroke:#8c959f}.strip .th{stroke:#1f2328;stroke-dasharray:4 3;stroke-width:1.5}
.strip .pass{stroke:var(--pass);stroke-opacity:.7;stroke-width:6;stroke-linecap:round}
.strip .fail{stroke:var(--fail);stroke-width:6;stroke-linecap:square}
.strip .bl{fill:none;stroke:var(--bl);stroke-width:1.5}
.bar{vertical-align:middle;margin-left:6px}.bar .track{fill:#eaeef2}.bar .rate{fill:#54aeff}
.bar .whisker{stroke:#1f2328;stroke-width:1.5;fill:none}.bar .floor{stroke:var(--fail);stroke-width:2}
.diff{font-family:ui-monospace,monospace;font-size:12px;background:#f6f8fa;padding:6px;margin:4px 0}
del{background:#ffebe9;color:var(--fail)}ins{background:#dafbe1;color:var(--pass)}
.snaps{list-style:none;padding:0}.snaps li{margin:6px 0}
footer{margin-top:32px;color:var(--muted);font-size:12px}
@media print{#controls,nav{display:none}.grid thead{position:static}body{padding:0;max-width:none}
tr{break-inside:avoid}.grid tbody tr{content-visibility:visible}pre{max-height:none;overflow:visible}}
"""

JS = """
(function(){
var t=document.getElementById('t');if(!t)return;
var tb=t.tBodies[0],head=t.tHead.rows[0].cells;
var rows=Array.prototype.slice.call(tb.rows),texts=null;
var q=document.getElementById('q'),f=document.getElementById('f'),n=document.getElementById('n');
document.getElementById('controls').hidden=false;
function count(){var v=0;for(var i=0;i<rows.length;i++)if(!rows[i].hidden)v++;
n.textContent=v+' of '+rows.length+' shown';}
function keep(r,cls){var c=r.classList;if(!cls)return true;
if(cls==='bad')return c.contains('fail')||c.contains('error');return c.contains(cls);}
function filter(){var s=q.value.trim().toLowerCase(),cls=f.value;
if(s&&!texts)texts=rows.map(function(r){return r.textContent.toLowerCase();});
for(var i=0;i<rows.length;i++){var r=rows[i];
r.hidden=!(keep(r,cls)&&(!s||texts[i].indexOf(s)>=0));}count();}
var timer=null;q.addEventListener('input',function(){clearTimeout(timer);timer=setTimeout(filter,150);});
f.addEventListener('change',filter);
var RANK={error:0,fail:1,xpass:2,pass:4,xfail:5,skip:6};
function key(r,k,kind,col){var c=r.classList;
if(k==='o')return c.contains('pass')&&c.contains('bl')?3:RANK[c[0]];
if(kind==='n'){var v=k==='s'&&r.getAttribute('data-s');
return parseFloat(v||r.cells[col].textContent.replace(/,/g,''));}
return r.cells[col].textContent;}
Array.prototype.forEach.call(head,function(th,col){th.addEventListener('click',function(){
var k=th.getAttribute('data-k'),kind=th.getAttribute('data-t');
var dir=th.getAttribute('data-sort')==='ascending'?-1:1;
Array.prototype.forEach.call(head,function(h){h.removeAttribute('data-sort');});
th.setAttribute('data-sort',dir>0?'ascending':'descending');
var keyed=rows.map(function(r,i){return [key(r,k,kind,col),i,r];});
keyed.sort(function(a,b){var x=a[0],y=b[0];
if(kind==='n'){var xn=isNaN(x),yn=isNaN(y);if(xn||yn){if(xn&&yn)return a[1]-b[1];return xn?1:-1;}}
if(x<y)return -dir;if(x>y)return dir;return a[1]-b[1];});
var frag=document.createDocumentFragment();
rows=keyed.map(function(e){frag.appendChild(e[2]);return e[2];});
if(texts)texts=keyed.map(function(e){return texts[e[1]];});
tb.appendChild(frag);});
th.addEventListener('keydown',function(e){if(e.key==='Enter'||e.key===' '){e.preventDefault();th.click();}});});
window.addEventListener('beforeprint',function(){
Array.prototype.forEach.call(document.querySelectorAll('details'),function(d){d.open=true;});});
count();
})();
"""
