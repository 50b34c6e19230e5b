(function(){var errs=[];window.addEventListener('error',function(e){errs.push(String(e.message||e));
document.body&&document.body.setAttribute('data-errors',JSON.stringify(errs));});
window.addEventListener('load',function(){var imgs=document.querySelectorAll('img.plot');
for(var i=0;i<imgs.length;i++){var m=imgs[i];var r=m.getBoundingClientRect();
m.setAttribute('data-natural',m.naturalWidth+'x'+m.naturalHeight);
m.setAttribute('data-shown',Math.round(r.width)+'x'+Math.round(r.height));}
var wide=0,all=document.querySelectorAll('body *');for(var j=0;j<all.length;j++){
if(all[j].scrollWidth>all[j].clientWidth+1&&all[j].clientWidth>0&&getComputedStyle(all[j]).overflowX!='visible')wide++;}
var d=document.documentElement;document.body.setAttribute('data-overflow',String(wide));
document.body.setAttribute('data-page-scroll',String(d.scrollWidth>d.clientWidth+1?1:0));
document.body.setAttribute('data-errors',JSON.stringify(errs));
document.body.setAttribute('data-ready','1');});})();
