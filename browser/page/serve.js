// The view of `wgstress serve`'s items: the plan as it came, each item's state and result
// as serve reports it, and the consent button that lets items that may hang the machine
// start. It only shows what serve says and sends `consent`; executor.js runs the work.
'use strict';

const list = document.getElementById('items');
const status = document.getElementById('status');
const consentBox = document.getElementById('consent');
let rows = [];

// WebGPU is offered only to secure pages: HTTPS, or 127.0.0.1 and localhost.
if (!navigator.gpu) {
  status.textContent = window.isSecureContext
    ? 'This browser offers no WebGPU: it cannot be a device.'
    : 'This browser offers WebGPU only to secure pages: open this address as 127.0.0.1 through '
      + 'a tunnel (adb reverse, ssh -L), or let the browser treat it as secure (docs/browser.md).';
}

function setRow(index, text, state) {
  const row = rows[index];
  if (!row) return;
  row.className = state;
  row.querySelector('.state').textContent = text;
}

// eslint-disable-next-line no-unused-vars
function onServeEvent(m) {
  if (m.event === 'plan') {
    list.textContent = '';
    rows = m.items.map((item) => {
      const li = document.createElement('li');
      const name = document.createElement('span');
      name.textContent = item.name;
      const state = document.createElement('span');
      state.className = 'state';
      li.append(name, ' ', state);
      li.className = 'waiting';
      state.textContent = item.mayHang ? '(waits for your agreement)' : '';
      list.append(li);
      return li;
    });
    status.textContent = `This browser's GPU is a wgstress device: ${m.items.length} items to run.`;
    if (m.items.some((item) => item.mayHang)) consentBox.style.display = 'block';
  } else if (m.event === 'started') {
    setRow(m.item, 'running...', 'running');
  } else if (m.event === 'ended') {
    setRow(m.item, m.result, m.passed ? 'passed' : 'failed');
  } else if (m.event === 'done') {
    status.textContent = `Done: ${m.why}. The results are with wgstress; this page may be closed.`;
    consentBox.style.display = 'none';
  }
}

document.getElementById('agree').addEventListener('click', () => {
  send({ event: 'consent' });
  consentBox.style.display = 'none';
});
